/**
 * Runs the EKS simulator standalone: `npx tsx local/eks-sim/main.ts --port 4566 --speed 60 --seed 7`.
 * Point CloudOrch at it explicitly with `CLOUDORCH_EKS_ENDPOINT=<printed url>`.
 */
import { parseArgs } from 'node:util';
import { startEksSimulator } from './server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '1' },
    speed: { type: 'string', default: '1' },
    account: { type: 'string', default: '000000000000' },
    'clusters-per-region': { type: 'string', default: '100' },
  },
});

const sim = await startEksSimulator({
  port: Number(values.port),
  host: values.host,
  seed: Number(values.seed),
  speed: Number(values.speed),
  accountId: values.account,
  clustersPerRegion: Number(values['clusters-per-region']),
});
process.stdout.write(`EKS simulator listening at ${sim.url} (admin API under ${sim.url}/_sim/)\n`);
const stop = () => void sim.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
