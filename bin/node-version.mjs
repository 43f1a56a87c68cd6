// The Node version the package declares it needs (package.json `engines.node`, one source of truth),
// checked before anything else loads: on an older Node the control plane starts but every execution
// fails, which must never be what a user sees instead of this message.
import { readFileSync } from 'node:fs';

/** The problem with running on `version` (e.g. "20.20.2"), or undefined when it is new enough. */
export function nodeVersionProblem(version, engines = readEngines()) {
  const min = /(\d+)\.(\d+)/.exec(engines ?? '');
  if (!min) return undefined;
  const [major, minor] = version.split('.').map(Number);
  const [needMajor, needMinor] = [Number(min[1]), Number(min[2])];
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `cloudorch needs Node ${needMajor}.${needMinor} or later (package.json engines: ${engines}); this is Node ${version}`;
}

function readEngines() {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return pkg.engines?.node;
}
