/**
 * What stands in locally for a rollout's two outside services: the notifications the SNS topic would
 * carry (kept in order, for the dashboard and the tests) and CloudWatch alarms set by hand
 * (`setAlarm`, as `aws cloudwatch set-alarm-state` would). Only the control plane wires it in; the
 * Lambda functions get the SNS and CloudWatch clients.
 */
import { NotFoundError } from '../../lambdas/core/errors.js';
import type { AlarmReader, Notifier } from '../../lambdas/handlers/deps.js';

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export interface Notification {
  readonly at: string;
  readonly subject: string;
  readonly message: string;
}

export class RolloutBoard {
  readonly notifications: Notification[] = [];
  private readonly alarmStates = new Map<string, AlarmState>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  readonly notifier: Notifier = {
    publish: async (subject, message) => {
      this.notifications.push({ at: this.now().toISOString(), subject, message });
    },
  };

  readonly alarms: AlarmReader = {
    inAlarm: async (names) => {
      const missing = names.filter((n) => !this.alarmStates.has(n));
      if (missing.length > 0)
        throw new NotFoundError(`no CloudWatch alarm named ${missing.join(', ')}`, {
          remediation: 'Create the alarm, or remove it from the rollout failurePolicy.alarms.',
        });
      return names.filter((n) => this.alarmStates.get(n) === 'ALARM');
    },
  };

  setAlarm(name: string, state: AlarmState): void {
    this.alarmStates.set(name, state);
  }
}
