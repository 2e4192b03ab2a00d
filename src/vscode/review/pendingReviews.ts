import * as vscode from 'vscode';
import type { DiffReviewHost } from './diffReviewHost';
import type { StatusBar } from '../statusBar';
import { notify } from '../notify';
import { COMMANDS } from '../../host/commandIds';
import { registerCommand } from '../commandTable';

/**
 * The pending-reviews status item and its quick pick: every proposal still waiting (also those opened
 * in the background or whose tab is buried), and picking one brings its diff to the front.
 * `whoAsked` names the claude a review belongs to (its terminal), when known.
 */
export function registerPendingReviews(
  review: DiffReviewHost,
  statusBar: StatusBar,
  whoAsked: (connectionId: number) => string | undefined,
): vscode.Disposable {
  const relative = (filePath: string) => vscode.workspace.asRelativePath(filePath, false);
  const refresh = () => statusBar.updateReviews(review.pendingReviews().map((r) => relative(r.filePath)));
  refresh();
  return vscode.Disposable.from(
    review.onDidChangePending(refresh),
    registerCommand(
      COMMANDS.showPendingReviews,
      async (id?: string) => {
        const pending = review.pendingReviews();
        if (pending.length === 0) {
          void notify.info('No Claude proposal is waiting for review.');
          return undefined;
        }
        const picked =
          typeof id === 'string'
            ? pending.find((r) => r.id === id)
            : (
                await vscode.window.showQuickPick(
                  pending.map((r) => ({
                    label: `$(diff) ${relative(r.filePath)}`,
                    description: [whoAsked(r.connectionId), r.shown ? undefined : 'not opened yet'].filter(Boolean).join(' · '),
                    detail: r.title,
                    review: r,
                  })),
                  { title: "Claude's proposals waiting for review", placeHolder: 'Pick one to open it' },
                )
              )?.review;
        if (picked) await review.reveal(picked.id);
        return picked?.id;
      },
      'Could not show the pending reviews',
    ),
  );
}
