import type { WorkspaceHost } from '../host/workspace';
import { resolveInWorkspace, WorkspacePathError, type WorkspacePath } from '../workspace/workspacePaths';

/** Resolves a tool's path inside the workspace, or returns the message the model should read. */
export async function workspaceTarget(host: WorkspaceHost, input: string, options: { mustExist?: boolean } = {}): Promise<WorkspacePath | { error: string }> {
  try {
    return await resolveInWorkspace(input, host.folders(), { mustExist: options.mustExist });
  } catch (error) {
    if (error instanceof WorkspacePathError) return { error: error.message };
    throw error;
  }
}
