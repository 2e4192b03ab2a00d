import * as vscode from 'vscode';
import { terminalSsePort } from '../terminals/terminalEnvironment';
import type { IdeExtensionChoice } from '../../health/checkSetup';
import { ANTHROPIC_EXTENSION_ID, CHOICE_ANTHROPIC, CHOICE_THIS, COEXISTENCE_QUESTION, coexistencePlan, type CoexistencePlan } from '../../health/coexistence';
import { notify } from '../notify';
import { COMMANDS } from '../../host/commandIds';
import { registerCommand } from '../commandTable';

const CHOICE_KEY = 'nativeClaude.ideExtensionChoice';

/**
 * Anthropic's `anthropic.claude-code` next to this extension: detects it, asks once per workspace which
 * one serves it (remembered in the workspace state), and tells the extension what to run.
 */
export class Coexistence {
  /** Set when the last choice of this extension did not give new terminals its port. */
  portElsewhere = false;
  constructor(
    private readonly state: vscode.Memento,
    private readonly apply: (plan: CoexistencePlan) => Promise<void>,
    private readonly port: () => number | undefined,
  ) {}

  /** Whether this window gives new terminals `CLAUDE_CODE_SSE_PORT` = `port` now (Linux: reads a hidden terminal's environment; else undefined). */
  async newTerminalsGetPort(port: number): Promise<boolean | undefined> {
    if (process.platform !== 'linux') return undefined;
    const probe = vscode.window.createTerminal({
      name: 'Native Claude: environment check',
      hideFromUser: true,
      shellPath: '/bin/sh',
      shellArgs: ['-c', 'sleep 10'],
      isTransient: true,
    });
    try {
      const value = await terminalSsePort(probe);
      return value === undefined ? undefined : value === String(port);
    } finally {
      probe.dispose();
    }
  }

  get anthropic(): { version: string; active: boolean; choice?: IdeExtensionChoice } | undefined {
    const ext = vscode.extensions.getExtension(ANTHROPIC_EXTENSION_ID);
    if (!ext) return undefined;
    return { version: String((ext.packageJSON as { version?: unknown }).version ?? '?'), active: ext.isActive, choice: this.choice };
  }

  get choice(): IdeExtensionChoice | undefined {
    return this.state.get<IdeExtensionChoice>(CHOICE_KEY);
  }

  plan(): CoexistencePlan {
    return coexistencePlan(this.anthropic !== undefined, this.choice);
  }

  /** Asks if nothing is chosen yet (not awaited at start-up: the question waits for the user). */
  async askIfUndecided(): Promise<void> {
    if (!this.plan().ask) return;
    const picked = await notify.info(COEXISTENCE_QUESTION, CHOICE_THIS, CHOICE_ANTHROPIC, 'Check Setup');
    if (picked === 'Check Setup') await vscode.commands.executeCommand(COMMANDS.checkSetup);
    else if (picked) await this.choose(picked === CHOICE_THIS ? 'this' : 'anthropic');
  }

  /** `nativeClaude.chooseIdeExtension [this|anthropic]`; without an argument, a quick pick. */
  async choose(choice?: IdeExtensionChoice): Promise<IdeExtensionChoice | undefined> {
    if (choice === undefined) {
      const items = [
        { label: CHOICE_THIS, description: 'this extension serves claude in this workspace', value: 'this' as const },
        { label: CHOICE_ANTHROPIC, description: "Anthropic's extension serves it; Native Claude stays off here", value: 'anthropic' as const },
      ];
      choice = (await vscode.window.showQuickPick(items, { title: 'Which extension should serve claude in this workspace?' }))?.value;
      if (!choice) return undefined;
    }
    await this.state.update(CHOICE_KEY, choice);
    await this.apply(this.plan());
    const port = this.port();
    // The port is set per workspace folder too, which VS Code applies after every extension's global
    // collection (terminalEnvironment.ts): new terminals should now get it. If they do not, something
    // else sets the variable, and a reload would not change that (VS Code keeps the collections' order).
    if (choice === 'this' && port !== undefined && this.anthropic && (await this.newTerminalsGetPort(port)) === false) {
      this.portElsewhere = true;
      void notify
        .warn(
          'Native Claude serves claude in this workspace, but new terminals of this window still get another CLAUDE_CODE_SSE_PORT. Claude: Check Setup shows where each terminal connects.',
          'Check Setup',
        )
        .then((c) => c && vscode.commands.executeCommand(COMMANDS.checkSetup));
      return choice;
    }
    this.portElsewhere = false;
    void notify.info(
      choice === 'this'
        ? 'Native Claude serves claude in this workspace. Terminals opened from now on get its port; relaunch older ones (Claude: Check Setup lists them).'
        : "Anthropic's Claude Code extension serves claude in this workspace; Native Claude's server is stopped here. Claude: Choose IDE Extension switches back.",
    );
    return choice;
  }
}

/** Claude: Choose IDE Extension [this|anthropic]: answers the choice and whether new terminals got the port elsewhere (for the tests). */
export function registerChooseIdeExtension(coexistence: Coexistence): vscode.Disposable {
  return registerCommand(
    COMMANDS.chooseIdeExtension,
    async (choice?: IdeExtensionChoice) => ({ choice: await coexistence.choose(choice), portElsewhere: coexistence.portElsewhere }),
    'Could not choose the IDE extension',
  );
}
