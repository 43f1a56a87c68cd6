/**
 * Imported first by every benchmark: handlers log and emit EMF to stdout in Lambda, which would bury
 * the figures; the benchmarks read counts through their own probes instead. Powertools reads these
 * when its modules load, so this module must be evaluated before any handler module.
 */
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
