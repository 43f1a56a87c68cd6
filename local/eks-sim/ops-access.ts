/** Access entries, access policies and the cluster's access config: not implemented yet, so no route is served. */
import type { Route } from './route.js';

export const ACCESS_ROUTES: readonly Route[] = [];
