/**
 * The CEL engine as the workspace uses it: loaded in the background after the first
 * paint, it feeds validation through a cache (compile results arrive from the worker
 * asynchronously; when they do, problems are recomputed and the UI re-renders).
 */
import { celStatus, createCachedCompiler, loadCel } from '../cel';
import { invalidateProblems, setCelCompiler } from './problems';
import { workspace } from './workspace';

/** Start the engine and route CEL checks of validation through it. */
export function startCel(): void {
  const compiler = createCachedCompiler(() => {
    invalidateProblems();
    workspace.setState((s) => ({ celRevision: s.celRevision + 1 }));
  });
  setCelCompiler(compiler);
  void loadCel().then(() => {
    const status = celStatus();
    workspace.setState((s) => ({ celRevision: s.celRevision + 1, celState: status.state, celMessage: status.message }));
  });
}
