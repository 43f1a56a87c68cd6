/** Step Functions: the client of capabilities `sfn:start`, `sfn:describe` and `sfn:callback`. */
import { SFNClient } from '@aws-sdk/client-sfn';
import { ENV } from '../../config.js';
import { sdkOptions, type Wiring } from '../compose.js';
import type { ExecutionStarter, TaskCallbacks } from '../deps.js';
import { sfnCallbacksOn } from '../sfn-callbacks.js';
import { sfnStarter } from '../sfn-starter.js';

export function sfnCallbacks(w: Wiring): TaskCallbacks {
  return sfnCallbacksOn(w.own(new SFNClient(sdkOptions(w, 'sfn'))));
}

export function sfnExecutions(w: Wiring): ExecutionStarter {
  return sfnStarter(w.own(new SFNClient(sdkOptions(w, 'sfn'))), w.env[ENV.stateMachine]);
}
