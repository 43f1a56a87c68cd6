/** The rollout notification topic on SNS: the client of capability `notify:publish`. */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { ENV } from '../../config.js';
import { required, sdkOptions, type Wiring } from '../compose.js';
import type { Notifier } from '../deps.js';

/** SNS limits a subject to 100 characters (ASCII, no line breaks). */
const subjectOf = (s: string) => s.replace(/[^\x20-\x7e]/g, ' ').slice(0, 100);

export function snsNotifier(w: Wiring): Notifier {
  const client = w.own(new SNSClient(sdkOptions(w)));
  const topic = required(w.env, ENV.rolloutTopic);
  return {
    publish: async (subject, message) => {
      await client.send(
        new PublishCommand({ TopicArn: topic, Subject: subjectOf(subject), Message: message }),
      );
    },
  };
}
