/**
 * The Migration view's Tests column: the source projects' own tests open in the workspace
 * (kyverno-test.yaml, gator suite.yaml) run on each rule's converted objects, again after every
 * edit. A cell shows the counts (passed, failed, decided differently by the source tool) and opens
 * onto the cases; the tests that could not be imported are listed under the table.
 */
import { useEffect, useRef, useState } from 'react';
import { readFiles } from '../files';
import type { KubernetesVersion } from '../../base/releases';
import type { Conversion } from '../../migrate';
import type { SourceCaseRun } from '../../migrate/source-tests';
import type { WorkspaceDoc } from '../../store';
import { runWorkspaceSourceTests, type WorkspaceSourceTests } from '../../store/migrate-tests';

/** Runs wait for the typing to pause. */
const DEBOUNCE_MS = 250;
/** One run at a time: a run waits for the one before it, and is dropped when an edit came meanwhile. */
let previous: Promise<unknown> = Promise.resolve();

/** The open tests' run on `conversion`, again whenever the documents, the conversion or the release change (undefined: none open, or not run yet). */
export function useSourceTests(docs: readonly WorkspaceDoc[], conversion: Conversion, release: KubernetesVersion): WorkspaceSourceTests | undefined {
  const [run, setRun] = useState<{ conversion: Conversion; result: WorkspaceSourceTests | undefined }>();
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      previous = previous.then(() =>
        !live
          ? undefined
          : runWorkspaceSourceTests(docs, conversion, release).then(
              (result) => live && setRun({ conversion, result }),
              (e: unknown) =>
                live &&
                setRun({
                  conversion,
                  result: { tests: [], runs: [], problems: [`the tests did not run: ${e instanceof Error ? e.message : String(e)}`] },
                }),
            ),
      );
    }, DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [docs, conversion, release]);
  // a run of an earlier conversion is kept on screen until the new one is done (its rows may have moved: only its problems)
  if (!run) return undefined;
  return run.conversion === conversion || !run.result ? run.result : { ...run.result, tests: [], runs: [] };
}

const STATE = {
  passed: { label: 'passed', className: 'tests-passed' },
  failed: { label: 'failed', className: 'tests-failed' },
  differs: { label: 'decided differently', className: 'tests-differs' },
} as const;

const stateOf = (r: SourceCaseRun): keyof typeof STATE => (r.pass ? 'passed' : r.differs ? 'differs' : 'failed');

/** One rule's tests: the counts, opening onto each case. */
export function TestsCell({ runs }: { runs: readonly SourceCaseRun[] | undefined }) {
  if (!runs?.length) return <span className="tests-none">none</span>;
  const count = (s: keyof typeof STATE) => runs.filter((r) => stateOf(r) === s).length;
  return (
    <details className="migration-tests" data-testid="migration-tests">
      <summary>
        {(Object.keys(STATE) as (keyof typeof STATE)[]).map((s) =>
          count(s) || s === 'passed' ? (
            <span key={s} className={`tests-count ${STATE[s].className}`} data-state={s}>
              {count(s)} {STATE[s].label}
            </span>
          ) : null,
        )}
      </summary>
      <ul>
        {runs.map((r, i) => (
          <li key={i} data-state={stateOf(r)}>
            <span className={`tests-count ${STATE[stateOf(r)].className}`}>{STATE[stateOf(r)].label}</span> <span className="mono">{r.name}</span>
            {r.differs ? <div className="help">{`The source tool decides otherwise: ${r.differs}.`}</div> : null}
            {r.why ? <div className="help">{r.why}</div> : null}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** What the open tests could not import or run, each naming its file. */
export function TestProblems({ problems }: { problems: readonly string[] }) {
  if (!problems.length) return null;
  return (
    <>
      <h3>Tests not run</h3>
      <p className="help">Open the files a test names together with the test (or the folder that holds them).</p>
      <ul data-testid="migration-test-problems">
        {problems.map((p, i) => (
          <li key={i} className="mono">
            {p}
          </li>
        ))}
      </ul>
    </>
  );
}

/** Opens every YAML and JSON file of a folder (a policy repository with its tests: paths kept, hidden `.kyverno-test/` included). */
export function OpenFolder() {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" onClick={() => input.current?.click()} title="Policies with their tests: kyverno-test.yaml, suite.yaml and the files they name">
        Open a folder…
      </button>
      <input
        ref={input}
        type="file"
        className="visually-hidden"
        aria-label="Open a folder of YAML or JSON files"
        tabIndex={-1}
        data-testid="folder-input"
        {...{ webkitdirectory: '' }}
        onChange={(e) => {
          if (e.target.files) void readFiles(e.target.files);
          e.target.value = '';
        }}
      />
    </>
  );
}
