/**
 * The state machine's first states: a malformed StartExecution input fails at once, before any Task
 * runs, with a Cause that says what was wrong and that nothing was done; a valid one starts the run.
 */
import { TRIGGERS } from '../handlers/contracts.js';

export type Json = Record<string, unknown>;

/**
 * Record ids are `<namespace>/<name>`, both DNS labels. ASL has no regular expressions and
 * StringMatches knows only `*`, so ValidateInput checks what globs can express, the same in AWS
 * and locally: exactly one `/`, no empty label, no label starting or ending with `-`, and no ASCII
 * character outside `[a-z0-9/-]` (printable or whitespace). Not checked: label length (at most
 * 63), non-ASCII characters, `?` and `\` (the local matcher reads those two as a wildcard and an
 * escape). Apply and the bridge never write such an id; when no record has it, AcquireLease fails
 * and says so.
 */
const ID_SHAPE_ERRORS = ['*/*/*', '/*', '*/', '-*', '*-', '*-/*', '*/-*'];
const ID_FORBIDDEN_CHARS = [
  ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).filter(
    (c) => !/[a-z0-9/?\\-]/.test(c),
  ),
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
];
const idMatches = (pattern: string): Json => ({ Variable: '$.id', StringMatches: pattern });
const NOTHING_DONE = 'Nothing was done: no lease taken, no EKS call.';

function validateInput(): Json {
  const isString = (path: string): Json[] => [
    { Variable: path, IsPresent: true },
    { Variable: path, IsString: true },
  ];
  return {
    Type: 'Choice',
    Comment: 'Refuses a malformed StartExecution input before any Task runs',
    Choices: [
      { Not: { And: [...isString('$.id'), ...isString('$.trigger')] }, Next: 'MissingInput' },
      {
        Not: { Or: TRIGGERS.map((t) => ({ Variable: '$.trigger', StringEquals: t })) },
        Next: 'UnknownTrigger',
      },
      {
        Or: [
          { Not: idMatches('*/*') },
          ...ID_SHAPE_ERRORS.map(idMatches),
          // `*` is the one glob character; escaped, it matches itself.
          ...ID_FORBIDDEN_CHARS.map((c) => idMatches(c === '*' ? '*\\**' : `*${c}*`)),
        ],
        Next: 'MalformedId',
      },
    ],
    Default: 'Init',
  };
}

function invalidInput(cause: string): Json {
  return { Type: 'Fail', Error: 'InvalidInput', Cause: `${cause} ${NOTHING_DONE}` };
}

/** ValidateInput and its three refusals, then Init: the run's own fields start from a valid input. */
export function inputStates(): Json {
  return {
    ValidateInput: validateInput(),
    MissingInput: invalidInput(
      'The execution input needs the string fields id and trigger, e.g. {"id": "team/payments", "trigger": "manual"}.',
    ),
    UnknownTrigger: invalidInput(`The input's trigger must be one of ${TRIGGERS.join(', ')}.`),
    MalformedId: invalidInput(
      "The input's id must be <namespace>/<name>, two DNS labels: lowercase letters, digits and '-', starting and ending with a letter or digit.",
    ),
    Init: {
      Type: 'Pass',
      Parameters: {
        'id.$': '$.id',
        'trigger.$': '$.trigger',
        'owner.$': '$$.Execution.Name',
        loop: 0,
        leaseWaits: 0,
      },
      Next: 'AcquireLease',
    },
  };
}
