/**
 * The role CloudOrch assumes in another local account: `cloudorch dev` gives its functions this name
 * (one for the read and the write side), and `cloudorch sim role ACCOUNT` creates it in the simulator.
 */
export const LOCAL_TARGET_ROLE = 'cloudorch-target';
