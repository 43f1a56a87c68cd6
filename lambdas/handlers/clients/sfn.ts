/** Step Functions: the client of capabilities `sfn:start` and `sfn:describe`. */
import { SFNClient } from '@aws-sdk/client-sfn';
import { ENV } from '../../config.js';
import { sdkOptions, type Wiring } from '../compose.js';
import type { ExecutionStarter } from '../deps.js';
import { sfnStarter } from '../sfn-starter.js';

export function sfnExecutions(w: Wiring): ExecutionStarter {
  return sfnStarter(w.own(new SFNClient(sdkOptions(w, 'sfn'))), w.env[ENV.stateMachine]);
}
