/**
 * Reads an ASL definition once, before the library runs it: which handler serves each Task, which
 * Waits and Retries the timing options touch, and the copy the library actually runs. That copy
 * differs from the definition in three ways, all so Task timeouts follow AWS rather than the library:
 *
 * - every Task gets the longest `TimeoutSeconds` the library's own timer can hold (2^31-1 ms, about
 *   24.8 days): the library would otherwise give a Task without one a 60 s limit, where AWS has
 *   none. The real `TimeoutSeconds` and `HeartbeatSeconds` are enforced by the interpreter.
 * - `HeartbeatSeconds` is removed (the library does not know it).
 * - on `.waitForTaskToken` Tasks, a retrier or catcher naming `States.Timeout` also names
 *   `States.HeartbeatTimeout`, since a missed heartbeat is a kind of task timeout.
 */
import { CALLBACK_RESOURCE, type TaskSpec } from './task-run.js';

/** The definition cannot run locally (invalid ASL, missing handler, ambiguous state name). */
export class DefinitionError extends Error {
  override readonly name = 'DefinitionError';
}

export interface StateWalk {
  tasks: Map<string, TaskSpec>; // state name -> how to run it
  fixedWaits: Map<string, number>; // state name -> Seconds
  dynamicWaits: Set<string>;
  retryable: Set<string>;
  /** Task state name -> the Map and Parallel states it runs inside. */
  enclosing: Map<string, Set<string>>;
}

export function newWalk(): StateWalk {
  return {
    tasks: new Map(),
    fixedWaits: new Map(),
    dynamicWaits: new Set(),
    retryable: new Set(),
    enclosing: new Map(),
  };
}

/** The library's Task timer is one setTimeout: beyond 2^31-1 ms Node fires it at once. */
export const LIBRARY_TASK_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);
// Any other `.waitForTaskToken` integration (SQS, SNS, ECS...) has no local counterpart.
const WAIT_FOR_TOKEN = /\.waitForTaskToken$/;
const TOKEN_REFERENCE = '$$.Task.Token';
// AWS's bounds for TimeoutSeconds and HeartbeatSeconds.
const MAX_TASK_SECONDS = 99_999_999;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function positiveSeconds(state: string, field: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TASK_SECONDS) {
    throw new DefinitionError(`Task ${state}: ${field} must be an integer from 1 to ${MAX_TASK_SECONDS}`);
  }
  return value;
}

/** The FunctionName a callback Task invokes; the token must reach the handler through Payload. */
function callbackFunction(name: string, state: Record<string, unknown>): string {
  const params = state['Parameters'];
  if (!isRecord(params) || typeof params['FunctionName'] !== 'string') {
    throw new DefinitionError(
      `Task ${name}: a lambda:invoke.waitForTaskToken Task needs Parameters.FunctionName as a fixed string`,
    );
  }
  if (!JSON.stringify(params['Payload'] ?? params['Payload.$'] ?? null).includes(TOKEN_REFERENCE)) {
    throw new DefinitionError(
      `Task ${name}: Parameters.Payload must pass ${TOKEN_REFERENCE} to the function`,
    );
  }
  return params['FunctionName'];
}

function taskSpec(name: string, state: Record<string, unknown>): TaskSpec {
  const resource = state['Resource'];
  if (typeof resource !== 'string') throw new DefinitionError(`Task ${name} has no Resource string`);
  for (const field of ['TimeoutSecondsPath', 'HeartbeatSecondsPath']) {
    if (state[field] !== undefined)
      throw new DefinitionError(`Task ${name}: ${field} is not supported locally`);
  }
  const callback = resource === CALLBACK_RESOURCE;
  if (!callback && WAIT_FOR_TOKEN.test(resource)) {
    throw new DefinitionError(`Task ${name}: only lambda:invoke.waitForTaskToken callbacks run locally`);
  }
  const timeoutSeconds = positiveSeconds(name, 'TimeoutSeconds', state['TimeoutSeconds']);
  const heartbeatSeconds = positiveSeconds(name, 'HeartbeatSeconds', state['HeartbeatSeconds']);
  if (heartbeatSeconds !== undefined && !callback) {
    throw new DefinitionError(
      `Task ${name}: HeartbeatSeconds only applies to .waitForTaskToken Tasks locally`,
    );
  }
  return {
    state: name,
    resource,
    handlerKey: callback ? callbackFunction(name, state) : resource,
    callback,
    ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
    ...(heartbeatSeconds !== undefined ? { heartbeatSeconds } : {}),
  };
}

function addTask(acc: StateWalk, spec: TaskSpec): void {
  const seen = acc.tasks.get(spec.state);
  if (seen !== undefined && JSON.stringify(seen) !== JSON.stringify(spec)) {
    // Overrides are per state name across all branches; two Tasks sharing a name would share a handler.
    const what =
      seen.resource !== spec.resource
        ? `two Resources (${seen.resource}, ${spec.resource})`
        : 'two different Tasks';
    throw new DefinitionError(`Task name ${spec.state} is used for ${what}`);
  }
  acc.tasks.set(spec.state, spec);
}

/** The library's copy of one Task state (see the module comment). */
function prepareTask(state: Record<string, unknown>, spec: TaskSpec): Record<string, unknown> {
  const { HeartbeatSeconds: _h, ...rest } = state;
  const copy: Record<string, unknown> = { ...rest, TimeoutSeconds: LIBRARY_TASK_TIMEOUT_SECONDS };
  if (spec.callback) {
    for (const field of ['Retry', 'Catch']) {
      const rules = copy[field];
      if (!Array.isArray(rules)) continue;
      copy[field] = rules.map((rule: unknown) => {
        if (!isRecord(rule) || !Array.isArray(rule['ErrorEquals'])) return rule;
        const names = rule['ErrorEquals'] as unknown[];
        if (!names.includes('States.Timeout') || names.includes('States.HeartbeatTimeout')) return rule;
        return { ...rule, ErrorEquals: [...names, 'States.HeartbeatTimeout'] };
      });
    }
  }
  return copy;
}

function prepareState(
  name: string,
  state: Record<string, unknown>,
  acc: StateWalk,
  parents: readonly string[],
): Record<string, unknown> {
  const type = state['Type'];
  if (Array.isArray(state['Retry']) && state['Retry'].length > 0) acc.retryable.add(name);
  if (type === 'Task') {
    const spec = taskSpec(name, state);
    addTask(acc, spec);
    const enclosing = acc.enclosing.get(name) ?? new Set<string>();
    for (const p of parents) enclosing.add(p);
    acc.enclosing.set(name, enclosing);
    return prepareTask(state, spec);
  }
  const inner = [...parents, name];
  if (type === 'Wait') {
    if (typeof state['Seconds'] === 'number') acc.fixedWaits.set(name, state['Seconds']);
    else acc.dynamicWaits.add(name);
  } else if (type === 'Parallel') {
    const branches = state['Branches'];
    if (!Array.isArray(branches)) throw new DefinitionError(`Parallel ${name} has no Branches`);
    return {
      ...state,
      Branches: branches.map((b, i) => prepareDefinition(b, acc, `${name}.Branches[${i}]`, inner)),
    };
  } else if (type === 'Map') {
    const key = state['ItemProcessor'] !== undefined ? 'ItemProcessor' : 'Iterator';
    return { ...state, [key]: prepareDefinition(state[key], acc, `${name}.${key}`, inner) };
  }
  return state;
}

/**
 * Walks every state, including Parallel branches and Map item processors (the library keys its
 * overrides by state name), filling `acc`, and returns the copy the library runs.
 */
export function prepareDefinition(
  definition: unknown,
  acc: StateWalk,
  where: string,
  parents: readonly string[],
): Record<string, unknown> {
  if (!isRecord(definition) || !isRecord(definition['States'])) {
    throw new DefinitionError(`${where}: a state machine needs a States object`);
  }
  const states: Record<string, unknown> = {};
  for (const [name, state] of Object.entries(definition['States'])) {
    if (!isRecord(state)) throw new DefinitionError(`${where}: state ${name} is not an object`);
    states[name] = prepareState(name, state, acc, parents);
  }
  return { ...definition, States: states };
}
