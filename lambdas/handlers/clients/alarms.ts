/** CloudWatch alarms a rollout's failure policy names: the client of capability `alarms:read`. */
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { NotFoundError } from '../../core/errors.js';
import { sdkOptions, type Wiring } from '../compose.js';
import type { AlarmReader } from '../deps.js';

/** DescribeAlarms takes at most 100 names per call. */
const PAGE = 100;

export function cloudWatchAlarms(w: Wiring): AlarmReader {
  const client = w.own(new CloudWatchClient(sdkOptions(w)));
  return {
    inAlarm: async (names) => {
      const states = new Map<string, string>();
      for (let i = 0; i < names.length; i += PAGE) {
        let next: string | undefined;
        do {
          const out = await client.send(
            new DescribeAlarmsCommand({
              AlarmNames: names.slice(i, i + PAGE),
              AlarmTypes: ['MetricAlarm', 'CompositeAlarm'],
              NextToken: next,
            }),
          );
          for (const a of [...(out.MetricAlarms ?? []), ...(out.CompositeAlarms ?? [])])
            if (a.AlarmName) states.set(a.AlarmName, a.StateValue ?? 'INSUFFICIENT_DATA');
          next = out.NextToken;
        } while (next);
      }
      // An alarm that does not exist would never fire: a typo must not pass as "not in ALARM".
      const missing = names.filter((n) => !states.has(n));
      if (missing.length > 0)
        throw new NotFoundError(`no CloudWatch alarm named ${missing.join(', ')}`, {
          remediation: 'Create the alarm, or remove it from the rollout failurePolicy.alarms.',
        });
      return names.filter((n) => states.get(n) === 'ALARM');
    },
  };
}
