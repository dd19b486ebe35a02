/**
 * Every problem of the selected document, in the vocabulary the CLI uses too (src/check
 * severity.ts): what the apiserver would reject (errors), what it would accept with a warning
 * (warnings), and our findings (lints). A click focuses the field in the form and its line in
 * the YAML. Many identical findings (one per webhook) are one line that expands.
 */
import { sourceKindOf } from '../migrate/documents';
import { memo, useMemo, useState } from 'react';
import type { DocProblems, Problem, ProblemGroup, WorkspaceDoc } from '../store';
import { checks, docKind, useWorkspace, workspace } from '../store';
import { FixButton } from './FixButton';
import { sameProblem } from './form-context';

/**
 * One line of the list. Every edit validates again and makes new problem objects; a line is
 * rendered again only when what it shows changed (a big document has hundreds of lines).
 */
const ProblemLine = memo(
  function ProblemLine({ docId, problem: p }: { docId: string; problem: Problem }) {
    return (
      <li className={`${p.level}${p.lint ? ' lint' : ''}`}>
        <button
          type="button"
          className="link"
          data-problem-path={p.field}
          data-lint={p.lint ? p.label : undefined}
          onClick={() => workspace.getState().focusField(docId, p.field)}
        >
          <span className="badge" title={p.lint ? `best practice: ${p.lint}` : undefined}>
            {p.label}
          </span>{' '}
          <code>{p.field || '(object)'}</code>: {p.label === 'TypeChecking' ? <span className="type-checking">{p.message}</span> : p.message}
        </button>
        <FixButton docId={docId} problem={p} />
        {p.hint ? <div className="hint">{p.hint}</div> : null}
      </li>
    );
  },
  (a, b) => a.docId === b.docId && sameProblem(a.problem, b.problem),
);

/**
 * Stable keys (not positions) for the lines of one list: a new error at the top must not
 * re-render every line below it. Label and field are enough (the message may change in place);
 * worked out for the lines rendered only (a group's members when it is open).
 */
function keysOf(problems: readonly Problem[]): (p: Problem) => string {
  const seen = new Map<string, number>();
  const out = new Map<Problem, string>();
  for (const p of problems) {
    const k = `${p.label}|${p.field}`;
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    out.set(p, n ? `${k}|${n}` : k);
  }
  return (p) => out.get(p)!;
}

/** Members of an expanded group rendered at first, and added per "Show more" (10,000 webhooks: one line each would be 10,000 elements per keystroke). */
const MEMBERS_SHOWN = 200;

/** Many problems of one rule and field pattern: one line with the count, the members when expanded (rendered only then, the first MEMBERS_SHOWN at a time). */
function GroupLine({ docId, group: g }: { docId: string; group: ProblemGroup }) {
  const first = g.items[0]!;
  const [open, setOpen] = useState(false);
  const [shown, setShown] = useState(MEMBERS_SHOWN);
  const members = open ? g.items.slice(0, shown) : [];
  const keyOf = keysOf(members);
  const more = g.items.length - members.length;
  return (
    <li className={`${g.level}${first.lint ? ' lint' : ''} group`}>
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary data-problem-group={g.label}>
          <span className="badge" title={first.lint ? `finding: ${first.lint}` : undefined}>
            {g.label}
          </span>{' '}
          × {g.items.length.toLocaleString('en-US')} <code>{g.field || '(object)'}</code>: {first.message}
          {g.items.some((p) => p.message !== first.message) ? ' (and similar)' : ''}
        </summary>
        <ul>
          {members.map((p) => (
            <ProblemLine key={keyOf(p)} docId={docId} problem={p} />
          ))}
          {open && more > 0 ? (
            <li className="more">
              <button type="button" className="link" onClick={() => setShown((n) => n + MEMBERS_SHOWN)}>
                Show {Math.min(more, MEMBERS_SHOWN).toLocaleString('en-US')} more of {more.toLocaleString('en-US')}
              </button>
            </li>
          ) : null}
        </ul>
      </details>
    </li>
  );
}

/** The panel; `problems` is null while the document's first check is still to come (DocumentView). */
export function ProblemsPanel({ doc, problems }: { doc: WorkspaceDoc; problems: DocProblems | null }) {
  const release = useWorkspace((s) => s.kubernetesVersion);
  if (!problems) {
    return (
      <section className="problems" aria-label="Problems" aria-busy="true">
        <h2>
          Problems{' '}
          <span className="count" data-testid="problem-count">
            checking…
          </span>
        </h2>
      </section>
    );
  }
  return <ProblemsList doc={doc} problems={problems} release={release} />;
}

function ProblemsList({ doc, problems, release }: { doc: WorkspaceDoc; problems: DocProblems; release: string }) {
  const lintWarnings = problems.lints.filter((l) => l.severity === 'warning').length;
  // problems come from the checks: they are loaded
  const lines = useMemo(() => checks()?.groupProblems(problems.items) ?? [], [problems.items]);
  const keyOf = useMemo(() => keysOf(lines.flatMap((l) => ('group' in l ? [] : [l.problem]))), [lines]);
  const source = sourceKindOf(doc.object);
  // the target release's CEL engine did not load: its compile errors are unknown, so "no problems" would be a claim
  const celFailed = useWorkspace((s) => s.celState === 'failed');
  const celMessage = useWorkspace((s) => s.celMessage);
  const clean = problems.errors + problems.warnings === 0;
  return (
    <section className="problems" aria-label="Problems">
      <h2>
        Problems{' '}
        <span className={`count ${problems.errors ? 'error' : problems.warnings ? 'warning' : 'ok'}`} data-testid="problem-count">
          {problems.errors} error{problems.errors === 1 ? '' : 's'}, {problems.warnings} warning{problems.warnings === 1 ? '' : 's'}
        </span>
        {problems.lints.length ? (
          <span
            className={`count ${lintWarnings ? 'warning' : ''}`}
            data-testid="lint-count"
            title="Findings are ours, not the apiserver's: best practices it accepts, but risky"
          >
            {problems.lints.length} finding{problems.lints.length === 1 ? '' : 's'}
          </span>
        ) : null}
      </h2>
      {celFailed && problems.checked && !source ? (
        <p className="not-checked" role="alert" data-testid="cel-unchecked">
          CEL expressions not checked: {celMessage ?? 'the CEL engine is unavailable'}. Nothing here says this object is accepted.
        </p>
      ) : clean && problems.checked ? (
        <p className="ok">
          {source
            ? `No problems in its structure: ${source.project}'s CRD schema accepts it.`
            : `No problems: a Kubernetes ${release} apiserver accepts this object.`}
        </p>
      ) : null}
      {!problems.checked ? (
        <p className="not-checked" data-testid="not-checked">
          Kept but not checked: the Workbench checks only admission configuration (webhook configurations, admission policies and their bindings). This{' '}
          {docKind(doc)} is exported unchanged; only its YAML and its size are checked.
        </p>
      ) : null}
      <ul>
        {problems.parse ? (
          <li className="error">
            <span className="badge">YAML</span> line {problems.parse.line}, column {problems.parse.column}: {problems.parse.message}{' '}
            <em>(the form shows the last version that parsed; your text is kept)</em>
          </li>
        ) : null}
        {lines.map((l) =>
          'group' in l ? (
            <GroupLine key={`group|${l.group.level}|${l.group.label}|${l.group.field}`} docId={doc.id} group={l.group} />
          ) : (
            <ProblemLine key={keyOf(l.problem)} docId={doc.id} problem={l.problem} />
          ),
        )}
      </ul>
    </section>
  );
}
