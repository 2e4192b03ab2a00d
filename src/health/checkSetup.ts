import * as path from 'node:path';
import { MODES_WITHOUT_REVIEW, type JsonFileFacts, type SettingsScope } from './cliSettings';
import type { Finding, Fix, HealthReport } from './findings';
import { foldersOverlap, type LockFileFacts } from './lockFiles';
import { cliVersionSupport, matchesToolLevelRules, SUPPORTED_CLI_RANGE_TEXT } from '../util/cliVersion';
import type { CliFacts } from './cliProbe';
import type { ApprovalMode } from '../host/approvalMode';
import { ALTERNATE_TOOLS_SERVER_NAME, describeEntry, isToolsRouteEntry } from '../cliSetup/toolsRouteEntry';
import { COMMANDS } from '../host/commandIds';

/** Commands the page's buttons run (registered by the extension). */
export const HEALTH_COMMANDS = {
  checkSetup: COMMANDS.checkSetup,
  startServer: COMMANDS.startServer,
  restartServer: COMMANDS.restartServer,
  relaunchTerminals: COMMANDS.relaunchTerminals,
  deleteStaleLockFile: COMMANDS.deleteStaleLockFile,
  enableTools: COMMANDS.enableTools,
  addPermissionRules: COMMANDS.addPermissionRules,
  chooseIdeExtension: COMMANDS.chooseIdeExtension,
  openFile: COMMANDS.openPath,
  openSettings: 'workbench.action.openSettings',
  showLog: COMMANDS.showLog,
} as const;

export interface TerminalFacts {
  name: string;
  /** `CLAUDE_CODE_SSE_PORT` in the terminal's environment; null = not set; undefined = could not be read. */
  ssePort: string | null | undefined;
}

export type IdeExtensionChoice = 'this' | 'anthropic';

export interface SetupFacts {
  workspaceFolders: string[];
  server: { running: boolean; port?: number; lockFilePath?: string; listening?: boolean; startError?: string };
  /** Every lock file in the CLI's lock-file folders. */
  lockFiles: LockFileFacts[];
  /** This window's lock-file pid (the other windows of the same VS Code have the same one). */
  lockPid: number;
  terminals: TerminalFacts[];
  /** Whether this window gives its terminals `CLAUDE_CODE_SSE_PORT` (not when the user chose Anthropic's extension). */
  providesTerminalPort: boolean;
  cli: CliFacts;
  userConfig: JsonFileFacts;
  settings: Array<JsonFileFacts & { scope: SettingsScope }>;
  toolsRoute: { expectedEntry: Record<string, unknown>; entry?: unknown; reachable?: boolean; reachError?: string; serverName: string };
  /** Rules this extension would add (empty when none make sense for the settings). */
  suggestedRules: string[];
  /** `nativeClaude.approvalMode`: what this window does, and the user's own setting (src/vscode/approvalModeSetting.ts). */
  approvalMode: { effective: ApprovalMode; user: ApprovalMode };
  anthropicExtension?: { version: string; active: boolean; choice?: IdeExtensionChoice };
}

const fix = (label: string, command: string, ...args: unknown[]): Fix => ({ label, command, args: args.length ? args : undefined });
const openFix = (label: string, file: string): Fix => ({ label, command: HEALTH_COMMANDS.openFile, args: [file] });

/** Turns what was gathered into the page: one section per question, each finding with its fixes. */
export function checkSetup(facts: SetupFacts): HealthReport {
  return {
    sections: [
      { title: 'Connection', question: "Why doesn't /ide find VS Code?", findings: connectionFindings(facts) },
      { title: 'claude CLI', question: 'Which claude runs, and what in its settings changes what you see?', findings: cliFindings(facts) },
      { title: 'VS Code tools', question: `Why don't the tools (mcp__${facts.toolsRoute.serverName}__*) show up?`, findings: toolsFindings(facts) },
    ],
  };
}

function connectionFindings(facts: SetupFacts): Finding[] {
  const out: Finding[] = [];
  const { server } = facts;
  const choseAnthropic = facts.anthropicExtension?.choice === 'anthropic';
  if (choseAnthropic) {
    out.push({
      id: 'coexistence.anthropic',
      severity: 'info',
      title: "This workspace uses Anthropic's Claude Code extension; Native Claude stays out of its way",
      detail: ['No server, no lock file and no terminal variable from Native Claude in this workspace.'],
      fixes: [fix('Use Native Claude here instead', HEALTH_COMMANDS.chooseIdeExtension, 'this')],
    });
  } else if (!server.running) {
    out.push({
      id: 'server.stopped',
      severity: 'error',
      title: 'The IDE server is not running: claude has nothing to connect to',
      detail: server.startError ? [`It failed to start: ${server.startError}`] : ['Start it, or turn on nativeClaude.autoStart.'],
      fixes: [fix('Start server', HEALTH_COMMANDS.startServer), fix('Show log', HEALTH_COMMANDS.showLog)],
    });
  } else if (server.listening === false) {
    out.push({
      id: 'server.notListening',
      severity: 'error',
      title: `Nothing answers on 127.0.0.1:${server.port}`,
      fixes: [fix('Restart server', HEALTH_COMMANDS.restartServer)],
    });
  } else {
    out.push({ id: 'server.ok', severity: 'ok', title: `Server listening on 127.0.0.1:${server.port}` });
  }

  const ours = facts.lockFiles.find((l) => server.running && l.port === server.port);
  if (server.running && !choseAnthropic) out.push(lockFileFinding(facts, ours));

  if (!choseAnthropic && server.running) out.push(...terminalFindings(facts));
  out.push(...otherLockFindings(facts, ours));
  if (facts.anthropicExtension && !choseAnthropic) {
    const { version, active, choice } = facts.anthropicExtension;
    out.push({
      id: 'coexistence.both',
      severity: choice ? 'info' : 'warning',
      title: `Anthropic's Claude Code extension ${version} is installed${active ? ' and running' : ''}`,
      detail: [
        'Both extensions give terminals CLAUDE_CODE_SSE_PORT and write a lock file for this folder: a terminal can get either port, and claude outside VS Code finds two IDEs for the folder and connects to neither by itself.',
        choice === 'this' ? 'You chose Native Claude for this workspace.' : 'Choose which one serves this workspace.',
      ],
      fixes: [fix('Choose…', HEALTH_COMMANDS.chooseIdeExtension)],
    });
  }
  return out;
}

function lockFileFinding(facts: SetupFacts, ours: LockFileFacts | undefined): Finding {
  const expected = facts.server.lockFilePath ?? '(unknown)';
  if (!ours) {
    return {
      id: 'lockFile.missing',
      severity: 'error',
      title: `No lock file for port ${facts.server.port}: claude cannot discover this window`,
      detail: [`Expected ${expected}. Restarting the server writes it again.`],
      fixes: [fix('Restart server', HEALTH_COMMANDS.restartServer)],
    };
  }
  const detail = [
    `${ours.path} (mode ${ours.mode.toString(8).padStart(4, '0')}, pid ${ours.pid ?? '?'} ${ours.pidAlive ? 'alive' : 'NOT alive'})`,
    `Folders: ${ours.workspaceFolders.join(', ') || '(none)'}`,
  ];
  const missing = facts.workspaceFolders.filter((f) => !ours.workspaceFolders.some((l) => l === f || (foldersOverlap(l, f) && l.length <= f.length)));
  if (ours.problem || !ours.pidAlive || missing.length > 0) {
    if (ours.problem) detail.push(`The CLI cannot use it: ${ours.problem}.`);
    if (!ours.pidAlive) detail.push('The CLI skips lock files whose pid is not a live process of this user.');
    if (missing.length) detail.push(`Not listed: ${missing.join(', ')}; claude started there outside VS Code will not find this window.`);
    return {
      id: 'lockFile.bad',
      severity: 'error',
      title: 'The lock file is not usable by claude',
      detail,
      fixes: [fix('Restart server', HEALTH_COMMANDS.restartServer)],
    };
  }
  if ((ours.mode & 0o077) !== 0) detail.push('Readable by other users: it holds the token.');
  return { id: 'lockFile.ok', severity: (ours.mode & 0o077) !== 0 ? 'warning' : 'ok', title: 'Lock file written', detail };
}

function terminalFindings(facts: SetupFacts): Finding[] {
  if (!facts.providesTerminalPort) return [];
  const port = String(facts.server.port);
  const missing = facts.terminals.filter((t) => t.ssePort === null);
  const other = facts.terminals.filter((t) => typeof t.ssePort === 'string' && t.ssePort !== port);
  const unknown = facts.terminals.filter((t) => t.ssePort === undefined);
  const out: Finding[] = [];
  if (missing.length > 0) {
    out.push({
      id: 'terminals.missingPort',
      severity: 'warning',
      title: `${missing.length} terminal${missing.length > 1 ? 's' : ''} opened before the IDE server started lack${missing.length > 1 ? '' : 's'} CLAUDE_CODE_SSE_PORT`,
      detail: [
        `${missing.map((t) => `"${t.name}"`).join(', ')}: claude typed there does not know this window's port; it connects only if this window is the one IDE whose folders contain its folder (and not at all after /ide picks another).`,
        'A relaunched terminal gets the variable.',
      ],
      fixes: [
        fix(
          'Relaunch these terminals',
          HEALTH_COMMANDS.relaunchTerminals,
          missing.map((t) => t.name),
        ),
      ],
    });
  }
  if (other.length > 0) {
    out.push({
      id: 'terminals.otherPort',
      severity: 'warning',
      title: `${other.length} terminal${other.length > 1 ? 's' : ''} point claude at another port`,
      detail: [
        `${other.map((t) => `"${t.name}" → ${t.ssePort}`).join(', ')}: claude typed there connects to that IDE, not to this window (another extension set it, or the terminal predates a server restart).`,
      ],
      fixes: [
        fix(
          'Relaunch these terminals',
          HEALTH_COMMANDS.relaunchTerminals,
          other.map((t) => t.name),
        ),
      ],
    });
  }
  if (out.length === 0 && facts.terminals.length > 0 && unknown.length < facts.terminals.length) {
    out.push({ id: 'terminals.ok', severity: 'ok', title: `Terminals carry CLAUDE_CODE_SSE_PORT=${port}` });
  }
  return out;
}

function otherLockFindings(facts: SetupFacts, ours: LockFileFacts | undefined): Finding[] {
  const competing = facts.lockFiles.filter((l) => l !== ours && l.workspaceFolders.some((lf) => facts.workspaceFolders.some((wf) => foldersOverlap(lf, wf))));
  return competing.map((lock): Finding => {
    const who = describeOwner(lock, facts);
    const theirs = isAnthropicLock(lock, facts);
    const choice = facts.anthropicExtension?.choice;
    const stale = lock.pid !== undefined && lock.pidAlive === false;
    const detail = [
      `${lock.path}: ${lock.ideName ?? 'unknown IDE'}, folders ${lock.workspaceFolders.join(', ')}, pid ${lock.pid ?? '?'}${stale ? ' (not running)' : ''}.`,
    ];
    if (stale) {
      detail.push('Left behind by an IDE that exited; claude deletes it at its next start. Harmless, but /ide may list it.');
      return {
        id: 'lockFiles.stale',
        severity: 'info',
        title: `Stale lock file for port ${lock.port}`,
        detail,
        fixes: [fix('Delete it', HEALTH_COMMANDS.deleteStaleLockFile, lock.path)],
      };
    }
    // The user chose Anthropic's extension here: Native Claude writes no lock file, nothing competes.
    if (theirs && choice === 'anthropic') {
      detail.push("As chosen for this workspace: Native Claude writes no lock file here, so claude finds Anthropic's extension for this folder.");
      return { id: 'lockFiles.anthropic', severity: 'info', title: `Anthropic's Claude Code extension serves this folder (port ${lock.port})`, detail };
    }
    detail.push(
      facts.providesTerminalPort
        ? "claude in this window's terminals still connects here (their CLAUDE_CODE_SSE_PORT decides). claude started elsewhere in this folder finds two IDEs and connects to neither by itself; /ide lets you pick."
        : 'claude started in this folder outside a terminal of that IDE finds two IDEs and connects to neither by itself; /ide lets you pick.',
    );
    // Chosen Native Claude: the user was told this when choosing; no warning (and no start-up offer) each time.
    if (theirs && choice === 'this') {
      detail.push("You chose Native Claude for this workspace; Anthropic's extension still writes its lock file (disable it for this workspace to stop that).");
      return { id: 'lockFiles.competing', severity: 'info', title: `Another IDE lists this folder: ${who} (port ${lock.port})`, detail };
    }
    return { id: 'lockFiles.competing', severity: 'warning', title: `Another IDE lists this folder: ${who} (port ${lock.port})`, detail };
  });
}

/** A lock file of this VS Code's process that Native Claude did not write (it writes 0600), with Anthropic's extension installed. */
function isAnthropicLock(lock: LockFileFacts, facts: SetupFacts): boolean {
  return lock.pid === facts.lockPid && (lock.mode & 0o077) !== 0 && facts.anthropicExtension !== undefined;
}

/** Who wrote a lock file, as far as can be told: Native Claude writes 0600; Anthropic's extension leaves the default mode. */
function describeOwner(lock: LockFileFacts, facts: SetupFacts): string {
  const sameProcess = lock.pid === facts.lockPid;
  if (isAnthropicLock(lock, facts)) return "Anthropic's Claude Code extension in this VS Code";
  if (sameProcess && (lock.mode & 0o077) !== 0) return 'another extension in this VS Code';
  if (sameProcess) return 'another window of this VS Code';
  return lock.ideName ? `${lock.ideName} (another process)` : 'another IDE';
}

// Long (~90 lines) on purpose: one finding after the other about the same CLI facts, each a few lines of
// text; split apart, each piece would take the same facts and push to the same list.
function cliFindings(facts: SetupFacts): Finding[] {
  const out: Finding[] = [];
  const { cli } = facts;
  if (!cli.path) {
    out.push({
      id: 'cli.notFound',
      severity: 'error',
      title: `"${cli.command}" is not on the PATH VS Code was started with`,
      detail: ['Install it (npm install -g @anthropic-ai/claude-code, or the native installer), or set nativeClaude.claudeCommand to its full path.'],
    });
  } else if (!cli.version) {
    out.push({ id: 'cli.noVersion', severity: 'warning', title: `${cli.path} did not report a version`, detail: cli.error ? [cli.error] : undefined });
  } else {
    const support = cliVersionSupport(cli.version);
    const range = SUPPORTED_CLI_RANGE_TEXT;
    out.push(
      support === 'supported'
        ? { id: 'cli.ok', severity: 'ok', title: `claude ${cli.version}`, detail: [`${cli.path} — supported range: ${range}.`] }
        : {
            id: `cli.${support}`,
            severity: 'warning',
            title: `claude ${cli.version} is outside the supported range (${range})`,
            detail: [
              cli.path,
              support === 'too-old'
                ? 'Update it: claude update (or npm install -g @anthropic-ai/claude-code).'
                : 'It may work; it was not tested with this extension.',
            ],
          },
    );
  }

  const config = facts.userConfig;
  if (config.problem) {
    out.push({
      id: 'config.unreadable',
      severity: 'error',
      title: `${config.file} is ${config.problem}`,
      detail: ['claude cannot read its own state either; fix or remove the file.'],
      fixes: [openFix('Open it', config.file)],
    });
  } else {
    const diffTool = config.content?.diffTool;
    if (diffTool !== undefined && diffTool !== 'auto') {
      out.push({
        id: 'config.diffTool',
        severity: 'warning',
        title: `diffTool is "${String(diffTool)}": edits are shown in the terminal, never in VS Code's review diff`,
        detail: [`Set in ${config.file}. In claude: /config → Diff tool → auto.`],
        fixes: [openFix(`Open ${path.basename(config.file)}`, config.file)],
      });
    }
    const auto = config.content?.autoConnectIde;
    if (auto === true)
      out.push({
        id: 'config.autoConnectIde',
        severity: 'info',
        title: 'autoConnectIde is on: claude outside VS Code connects when exactly one IDE lists its folder',
      });
    else if (auto === false)
      out.push({
        id: 'config.autoConnectIde',
        severity: 'info',
        title: 'autoConnectIde is off: claude outside VS Code connects only with --ide or /ide (terminals of this window connect anyway)',
      });
  }

  for (const settings of facts.settings) {
    if (settings.problem) {
      out.push({
        id: 'settings.unreadable',
        severity: 'warning',
        title: `${settings.file} is ${settings.problem}`,
        fixes: [openFix('Open it', settings.file)],
      });
      continue;
    }
    const permissions = settings.content?.permissions as Record<string, unknown> | undefined;
    const mode = typeof permissions?.defaultMode === 'string' ? permissions.defaultMode : undefined;
    if (mode && (MODES_WITHOUT_REVIEW as readonly string[]).includes(mode)) {
      out.push({
        id: 'settings.defaultMode',
        severity: 'warning',
        title: `permissions.defaultMode is "${mode}" (${settings.scope} settings): claude edits without asking, so no review diff opens`,
        detail: [`Set in ${settings.file}. Shift+Tab in claude switches modes for a session.`],
        fixes: [openFix(`Open ${settings.scope} settings`, settings.file)],
      });
    }
  }
  return out;
}

function toolsFindings(facts: SetupFacts): Finding[] {
  const out: Finding[] = [];
  const { toolsRoute: route, userConfig } = facts;
  const name = route.serverName;
  if (route.entry === undefined) {
    out.push({
      id: 'tools.missing',
      severity: 'warning',
      title: `No "${name}" MCP server in ${userConfig.file}: claude has only getDiagnostics from VS Code`,
      fixes: [fix("Let Claude use VS Code's tools", HEALTH_COMMANDS.enableTools)],
    });
    return out;
  }
  if (!isToolsRouteEntry(route.entry)) {
    out.push({
      id: 'tools.foreign',
      severity: 'warning',
      title: `"${name}" in ${userConfig.file} is an MCP server of your own (${describeEntry(route.entry)}), not VS Code's tools`,
      detail: [
        `It is left as it is. "Let Claude use VS Code's tools" offers to add them as "${ALTERNATE_TOOLS_SERVER_NAME}" instead, or to replace your server.`,
      ],
      fixes: [fix("Let Claude use VS Code's tools", HEALTH_COMMANDS.enableTools)],
    });
    return out;
  }
  const current = JSON.stringify(route.entry) === JSON.stringify(route.expectedEntry);
  out.push(
    current
      ? {
          id: 'tools.entry',
          severity: 'ok',
          title: `"${name}" MCP server entry present and current`,
          detail: ['claude started before it was added sees it only after a restart (/mcp lists it).'],
        }
      : {
          id: 'tools.outdated',
          severity: 'warning',
          title: `The "${name}" MCP server entry is not the one this version writes`,
          detail: [`Found ${JSON.stringify(route.entry)}`, `Expected ${JSON.stringify(route.expectedEntry)}`],
          fixes: [fix('Rewrite it', HEALTH_COMMANDS.enableTools)],
        },
  );
  if (facts.server.running) {
    out.push(
      route.reachable
        ? { id: 'tools.reachable', severity: 'ok', title: `ws://127.0.0.1:${facts.server.port}/tools accepts this window's token` }
        : {
            id: 'tools.unreachable',
            severity: 'error',
            title: `ws://127.0.0.1:${facts.server.port}/tools did not accept a connection`,
            detail: route.reachError ? [route.reachError] : undefined,
            fixes: [fix('Restart server', HEALTH_COMMANDS.restartServer)],
          },
    );
  }
  out.push(...unconfirmedByRules(facts));
  const allowed = new Set(
    facts.settings.filter((s) => s.scope === 'user').flatMap((s) => ((s.content?.permissions as { allow?: unknown })?.allow as string[] | undefined) ?? []),
  );
  const missingRules = facts.suggestedRules.filter((r) => !allowed.has(r));
  if (missingRules.length > 0) {
    const toolRules = matchesToolLevelRules(facts.cli.version ?? '') !== false;
    out.push({
      id: 'tools.permissionRules',
      severity: 'info',
      title: 'claude asks before every VS Code tool call, read-only ones included',
      detail: [
        `Adding ${missingRules.join(', ')} to permissions.allow makes VS Code's review diff the only confirmation of a write${toolRules ? '' : ' (claude 1.0.x matches only the whole-server rule)'}.`,
      ],
      fixes: [fix('Add these rules…', HEALTH_COMMANDS.addPermissionRules)],
    });
  }
  return out;
}

/** What a CLI allow rule lets a tool of the tools route do without claude asking. */
function rulesAllowing(allow: readonly string[], server: string, tools: readonly string[]): string[] {
  const whole = [`mcp__${server}`, `mcp__${server}__*`];
  return allow.filter((rule) => whole.includes(rule) || tools.some((tool) => rule === `mcp__${server}__${tool}`));
}

/**
 * The CLI's allow rules skip claude's own prompt on the premise that VS Code confirms the action:
 * writes in the review diff (unless approvalMode is "never"), commands with Run/Reject (only "always").
 * A rule whose premise the approval mode does not meet leaves that action confirmed nowhere.
 */
function unconfirmedByRules(facts: SetupFacts): Finding[] {
  const out: Finding[] = [];
  const { effective, user } = facts.approvalMode;
  const server = facts.toolsRoute.serverName;
  const settingFix = fix('Change nativeClaude.approvalMode', HEALTH_COMMANDS.openSettings, 'nativeClaude.approvalMode');
  for (const settings of facts.settings) {
    const allow = (settings.content?.permissions as { allow?: unknown } | undefined)?.allow;
    if (!Array.isArray(allow)) continue;
    const rules = allow.filter((r): r is string => typeof r === 'string');
    const gaps: Array<{ what: string; rules: string[]; needs: ApprovalMode[]; mode: ApprovalMode; where: string }> = [];
    const check = (mode: ApprovalMode, where: string) => {
      if (mode !== 'always') {
        const found = rulesAllowing(rules, server, ['execute_command']);
        if (found.length) gaps.push({ what: 'execute_command runs shell commands', rules: found, needs: ['always'], mode, where });
      }
      if (mode === 'never') {
        const found = rulesAllowing(rules, server, ['write_file', 'apply_diff', 'rename_symbol']);
        if (found.length)
          gaps.push({ what: 'write_file, apply_diff and rename_symbol change files', rules: found, needs: ['write-only', 'always'], mode, where });
      }
    };
    check(effective, 'in this window');
    // User-wide rules hold in every project; a workspace that asks for more does not cover the others.
    if (gaps.length === 0 && settings.scope === 'user' && user !== effective) check(user, 'in workspaces that do not set it (your user setting)');
    for (const gap of gaps) {
      out.push({
        id: 'tools.rulesUnconfirmed',
        severity: 'warning',
        title: `${gap.what} without anyone asking ${gap.where}: claude's rule skips its prompt, and approvalMode "${gap.mode}" does not ask either`,
        detail: [
          `${gap.rules.join(', ')} in permissions.allow of ${settings.file} (${settings.scope} settings) lets claude call it unasked, on the premise that VS Code asks (nativeClaude.approvalMode ${gap.needs.map((m) => `"${m}"`).join(' or ')}).`,
          `Either remove ${gap.rules.length > 1 ? 'these rules' : 'the rule'} from that file, or set nativeClaude.approvalMode to "${gap.needs[gap.needs.length - 1]}" in your user settings (a workspace setting can only make it stricter).`,
        ],
        fixes: [openFix(`Open ${settings.scope} settings`, settings.file), settingFix],
      });
    }
  }
  return out;
}
