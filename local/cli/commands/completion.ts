/**
 * `cloudorch completion bash|zsh`: a completion script generated from the program itself (commands,
 * subcommands, options), so it cannot drift from the CLI. CloudCluster names (get, describe, delete,
 * reconcile, approve, deny, sim drift), CloudRollout names (the rollout subcommands) and target names
 * come from the hidden `cloudorch __complete`, which asks the target and prints nothing when it cannot.
 */
import { Argument, type Command, Help } from 'commander';
import { listItems } from '../../../lambdas/store/list.js';
import type { Cli } from '../cli.js';
import { configPath, DEV_TARGET, readConfig } from '../config/file.js';
import { EXIT } from './exit.js';

/** Commands whose argument is a CloudCluster, and those whose argument is a target's name. */
const CLUSTER_COMMANDS = ['get', 'describe', 'delete', 'reconcile', 'approve', 'deny', 'sim drift'];
const TARGET_COMMANDS = ['config use-target', 'config delete-target', 'config set-target'];
const ROLLOUT_COMMANDS = [
  'rollout get',
  'rollout describe',
  'rollout approve',
  'rollout resume',
  'rollout abort',
];
/** Options whose value is a file or folder: the shells complete paths there. */
export const PATH_OPTIONS = ['-f', '--file', '--policies', '--out', '--data-dir'];
/** What the shared logic prints to ask the shell for path completion instead of words. */
const FILES = '__cloudorch_files';
/** How long `__complete` may take before it gives up quietly (a completion must not hang a shell). */
const COMPLETE_TIMEOUT_MS = 5000;

interface Node {
  readonly path: string;
  readonly subcommands: string[];
  readonly options: string[];
  readonly valueOptions: string[];
}

const help = new Help();

function flagsOf(cmd: Command): { all: string[]; value: string[] } {
  const opts = help.visibleOptions(cmd);
  const all = opts.flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));
  const value = opts
    .filter((o) => o.required || o.optional)
    .flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));
  return { all, value };
}

/** Every visible command with its subcommands and options; program options count everywhere. */
export function completionTree(program: Command): Node[] {
  const global = flagsOf(program);
  const nodes: Node[] = [];
  const walk = (cmd: Command, path: string): void => {
    const subs = help.visibleCommands(cmd);
    const own = cmd === program ? { all: [], value: [] } : flagsOf(cmd);
    nodes.push({
      path,
      subcommands: subs.map((s) => s.name()).sort(),
      options: [...new Set([...own.all, ...global.all])].sort(),
      valueOptions: [...new Set([...own.value, ...global.value])].sort(),
    });
    for (const s of subs) walk(s, path ? `${path} ${s.name()}` : s.name());
  };
  walk(program, '');
  return nodes;
}

const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

function caseFunction(name: string, entries: [string, string[]][]): string {
  const arms = entries
    .filter(([, words]) => words.length > 0)
    .map(([key, words]) => `    ${q(key)}) echo ${q(words.join(' '))} ;;`);
  return [`${name}() {`, '  case "$1" in', ...arms, '  esac', '}'].join('\n');
}

/** The word logic both shells share (zsh runs it with KSH_ARRAYS: arrays from 0, as in bash). */
function core(program: Command): string {
  const tree = completionTree(program);
  const programValue = flagsOf(program).value.join(' ');
  return `${caseFunction(
    '__cloudorch_subcommands',
    tree.map((n) => [n.path, n.subcommands]),
  )}
${caseFunction(
  '__cloudorch_options',
  tree.map((n) => [n.path, n.options]),
)}
${caseFunction(
  '__cloudorch_value_options',
  tree.map((n) => [n.path, n.valueOptions]),
)}
${caseFunction('__cloudorch_dynamic', [...CLUSTER_COMMANDS.map((c): [string, string[]] => [c, ['clusters']]), ...TARGET_COMMANDS.map((c): [string, string[]] => [c, ['targets']]), ...ROLLOUT_COMMANDS.map((c): [string, string[]] => [c, ['rollouts']])])}
# Prints the candidates for word number $1 of the command line given after it.
__cloudorch_candidates() {
  local cword=$1 cmdpath='' w i=1 cur prev='' subs
  shift
  local -a cw pass
  cw=("$@")
  pass=()
  while (( i < cword )); do
    w=\${cw[i]}
    case "$w" in
      -*)
        if [[ " $(__cloudorch_value_options "$cmdpath") " == *" $w "* ]]; then
          # The target's options go to __complete, so it asks the same target.
          if [[ " ${programValue} " == *" $w "* ]]; then pass+=("$w" "\${cw[i+1]}"); fi
          i=$((i + 1))
        fi ;;
      *)
        if [[ " $(__cloudorch_subcommands "$cmdpath") " == *" $w "* ]]; then cmdpath=\${cmdpath:+$cmdpath }$w; fi ;;
    esac
    i=$((i + 1))
  done
  cur=\${cw[cword]}
  if (( cword > 1 )); then prev=\${cw[cword-1]}; fi
  if [[ -n "$prev" && " $(__cloudorch_value_options "$cmdpath") " == *" $prev "* ]]; then
    if [[ "$prev" == --target ]]; then "\${cw[0]}" __complete targets 2>/dev/null; fi
    if [[ " ${PATH_OPTIONS.join(' ')} " == *" $prev "* ]]; then echo ${FILES}; fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then __cloudorch_options "$cmdpath"; return 0; fi
  subs=$(__cloudorch_subcommands "$cmdpath")
  if [[ -n "$subs" ]]; then echo "$subs"; return 0; fi
  case "$(__cloudorch_dynamic "$cmdpath")" in
    clusters) "\${cw[0]}" "\${pass[@]}" __complete clusters 2>/dev/null ;;
    targets) "\${cw[0]}" __complete targets 2>/dev/null ;;
  esac
  return 0
}`;
}

export function bashScript(program: Command): string {
  return `# cloudorch completion for bash: source <(cloudorch completion bash)
${core(program)}
_cloudorch() {
  local IFS=$'\\n' cands cur=\${COMP_WORDS[COMP_CWORD]}
  cands=$(__cloudorch_candidates "$COMP_CWORD" "\${COMP_WORDS[@]}")
  if [[ "$cands" == ${FILES} ]]; then
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
    return 0
  fi
  IFS=$' \\t\\n'
  COMPREPLY=($(compgen -W "$cands" -- "$cur"))
}
# -o default: where nothing is offered (a value, an argument), bash completes file names.
complete -o default -F _cloudorch cloudorch
`;
}

export function zshScript(program: Command): string {
  return `#compdef cloudorch
# cloudorch completion for zsh: source <(cloudorch completion zsh), after compinit
${core(program)}
_cloudorch() {
  setopt localoptions ksharrays
  local -a cands
  cands=(\${=$(__cloudorch_candidates $((CURRENT - 1)) "\${words[@]}")})
  if [[ "\${cands[*]}" == ${FILES} ]]; then _files; return; fi
  compadd -- "\${cands[@]}"
}
compdef _cloudorch cloudorch
`;
}

/** Cluster or rollout names (the part after the namespace), or target names; never an error on a terminal. */
async function complete(cli: Cli, kind: string): Promise<void> {
  if (kind === 'targets') {
    const config = await readConfig(configPath());
    cli.o().out([DEV_TARGET, ...Object.keys(config.targets)].join('\n'));
    return;
  }
  if (kind !== 'clusters' && kind !== 'rollouts') return;
  const t = await cli.target();
  try {
    const { records, invalid } =
      kind === 'clusters' ? await listItems(t.store) : await t.rollouts.store().list();
    const names = [...records, ...invalid].map((r) => r.id.slice(r.id.lastIndexOf('/') + 1));
    if (names.length > 0) cli.o().out([...new Set(names)].sort().join('\n'));
  } finally {
    t.close();
  }
}

export function registerCompletion(cli: Cli): void {
  cli.program
    .command('completion')
    .description('print a shell completion script: source <(cloudorch completion bash)')
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(['bash', 'zsh']))
    .action((shell: 'bash' | 'zsh') => {
      process.stdout.write((shell === 'bash' ? bashScript : zshScript)(cli.program));
    });
  cli.program
    .command('__complete <kind>', { hidden: true })
    .description('names for shell completion: clusters, rollouts or targets')
    .action(async (kind: string) => {
      setTimeout(() => process.exit(EXIT.ok), COMPLETE_TIMEOUT_MS).unref();
      // Completion is best effort: an unreachable target completes nothing, quietly.
      await complete(cli, kind).catch(() => undefined);
      process.exitCode = EXIT.ok;
    });
}
