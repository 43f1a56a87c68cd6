/**
 * Structured log lines and CloudWatch embedded-metric (EMF) lines, one JSON object per line, written
 * as AWS Lambda Powertools wrote them before (their code was about a tenth of a function's cold load:
 * docs/performance.md, "Bundles"): a log line's `level`, `message`, `timestamp`, `service`,
 * `xray_trace_id`, then its keys; a metric's `_aws` block with the `service` dimension first, which
 * the dashboard's and the alarms' metric queries name. The settings keep Powertools' variables
 * (POWERTOOLS_LOG_LEVEL, POWERTOOLS_METRICS_DISABLED), which the stack and operators already set.
 */
export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
type Threshold = LogLevel | 'CRITICAL' | 'SILENT';

const RANK: Readonly<Record<Threshold, number>> = {
  DEBUG: 10,
  INFO: 20,
  WARN: 30,
  ERROR: 40,
  CRITICAL: 50,
  SILENT: 100,
};
/** Powertools' other names of a level (Lambda's FATAL is its CRITICAL, above ERROR). */
const ALIASES: Readonly<Record<string, Threshold>> = { TRACE: 'DEBUG', FATAL: 'CRITICAL' };

function thresholdNamed(name: string | undefined): Threshold | undefined {
  const upper = name?.trim().toUpperCase();
  if (!upper) return undefined;
  const level = ALIASES[upper] ?? upper;
  return level in RANK ? (level as Threshold) : undefined;
}

/**
 * The threshold Powertools took: Lambda's (AWS_LAMBDA_LOG_LEVEL, set by its logging settings, which
 * also drop the lines below it) first, then POWERTOOLS_LOG_LEVEL; INFO when none or unknown.
 */
export function logThreshold(env: Readonly<Record<string, string | undefined>>): Threshold {
  return thresholdNamed(env['AWS_LAMBDA_LOG_LEVEL']) ?? thresholdNamed(env['POWERTOOLS_LOG_LEVEL']) ?? 'INFO';
}

const TRUE = new Set(['1', 'y', 'yes', 't', 'true', 'on']);

/** As Powertools read it: POWERTOOLS_METRICS_DISABLED when set (1, yes, on, true...), else POWERTOOLS_DEV. */
export function metricsDisabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const flag = env['POWERTOOLS_METRICS_DISABLED'] ?? env['POWERTOOLS_DEV'] ?? '';
  return TRUE.has(flag.trim().toLowerCase());
}

/** Powertools left out a key with no value (null, undefined or empty). */
function valued(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== ''),
  );
}

/** An Error as Powertools logged one (JSON.stringify makes an Error `{}`). */
function plain(_key: string, value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  return {
    name: value.name,
    message: value.message,
    stack: value.stack,
    ...(value.cause !== undefined ? { cause: value.cause } : {}),
  };
}

export type LineWriter = (line: string, level: LogLevel) => void;

/** INFO and DEBUG to stdout, WARN and ERROR to stderr, as Powertools' console did; Lambda keeps both. */
export const processWriter: LineWriter = (line, level) =>
  (level === 'WARN' || level === 'ERROR' ? process.stderr : process.stdout).write(`${line}\n`);

export interface LoggerOptions {
  readonly service: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly write: LineWriter;
}

export class JsonLogger {
  private readonly keys: Record<string, unknown>;
  constructor(
    private readonly o: LoggerOptions,
    keys: Readonly<Record<string, unknown>> = {},
  ) {
    this.keys = { ...keys };
  }

  /** A logger with this one's keys, to which keys are added without touching this one. */
  createChild(): JsonLogger {
    return new JsonLogger(this.o, this.keys);
  }

  appendKeys(keys: Readonly<Record<string, unknown>>): void {
    Object.assign(this.keys, keys);
  }

  debug(message: string, extra?: Readonly<Record<string, unknown>>): void {
    this.line('DEBUG', message, extra);
  }
  info(message: string, extra?: Readonly<Record<string, unknown>>): void {
    this.line('INFO', message, extra);
  }
  warn(message: string, extra?: Readonly<Record<string, unknown>>): void {
    this.line('WARN', message, extra);
  }
  error(message: string, extra?: Readonly<Record<string, unknown>>): void {
    this.line('ERROR', message, extra);
  }

  private line(level: LogLevel, message: string, extra?: Readonly<Record<string, unknown>>): void {
    if (RANK[level] < RANK[logThreshold(this.o.env)]) return;
    // Lambda sets the trace header per invocation: `Root=1-...;Parent=...;Sampled=...`.
    const trace = /(?:^|;)Root=([^;]+)/.exec(this.o.env['_X_AMZN_TRACE_ID'] ?? '')?.[1];
    const fields = {
      level,
      message,
      timestamp: new Date().toISOString(),
      service: this.o.service,
      ...(trace ? { xray_trace_id: trace } : {}),
      ...this.keys,
      ...extra,
    };
    this.o.write(JSON.stringify(valued(fields), plain), level);
  }
}

export interface MetricLine {
  readonly namespace: string;
  readonly service: string;
  readonly name: string;
  readonly unit: 'Count' | 'Seconds';
  readonly value: number;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly timestamp: number;
}

/**
 * One metric in its own EMF line, with the `service` dimension and the given ones. An empty dimension
 * value is left out (CloudWatch would drop the whole line), as Powertools left it out.
 */
export function emfLine(m: MetricLine): string {
  const dims = Object.entries(m.dimensions).filter(([k, v]) => k !== 'service' && v !== '');
  return JSON.stringify({
    _aws: {
      Timestamp: m.timestamp,
      CloudWatchMetrics: [
        {
          Namespace: m.namespace,
          Dimensions: [['service', ...dims.map(([k]) => k)]],
          Metrics: [{ Name: m.name, Unit: m.unit }],
        },
      ],
    },
    service: m.service,
    ...Object.fromEntries(dims),
    [m.name]: m.value,
  });
}
