/**
 * The report's changed requests: by who decided (a policy or webhook and its change, over every
 * namespace, user and resource: the overview), or in the finer groups that also split them by
 * namespace, user and resource. Filters by change and by text; each row opens its first example
 * in Simulate when the replay kept its request.
 */
import { useMemo } from 'react';
import { byDecider, CHANGES, pickRows, spreadOf, type Change, type DeciderRow, type ImpactReport, type ImpactRow } from '../../impact';
import { impact, openInSimulator, useImpact, type ImpactTable } from '../../store/impact';

export const CHANGE_LABEL: Readonly<Record<Change, string>> = {
  'newly-denied': 'newly denied',
  'no-longer-denied': 'no longer denied',
  'newly-warned': 'newly warned',
  'newly-audited': 'newly audited',
  'newly-mutated': 'newly mutated',
  undetermined: 'undetermined (reads what is unknown)',
  unchanged: 'unchanged',
};

/** Rows drawn in the table at most (the largest first): a log with thousands of groups draws in one frame; the filters and the exports reach the rest. */
const MAX_ROWS = 300;

type GroupBy = ImpactTable['groupBy'];

/** A row as the table draws it, whichever the grouping. */
interface Line {
  change: Change;
  by: string;
  count: number;
  /** The finer groups' namespace, user and resource cells, or the decider row's spread in one. */
  cells: string[];
  example?: ImpactRow['examples'][number];
}

const fromDecider = (d: DeciderRow): Line => ({
  change: d.change,
  by: d.by,
  count: d.count,
  cells: [spreadOf(d)],
  ...(d.example ? { example: d.example } : {}),
});

const fromRow = (r: ImpactRow): Line => ({
  change: r.change,
  by: r.by,
  count: r.count,
  cells: [r.namespace || '—', r.user, r.resource],
  ...(r.examples[0] ? { example: r.examples[0] } : {}),
});

const HEADS: Record<GroupBy, string[]> = { decider: ['where'], request: ['namespace', 'user', 'resource'] };

export function ChangedRequests({ report, rows, onOpen }: { report: ImpactReport; rows: readonly ImpactRow[]; onOpen: () => void }) {
  // kept in the store: a row opened in Simulate and the view come back, the table is as it was
  const { groupBy, change: filter, text } = useImpact((s) => s.table);
  const setTable = (t: Partial<ImpactTable>) => impact.setState((s) => ({ table: { ...s.table, ...t } }));
  // the filters pick the finer groups; the decider rows sum those picked (their counts, spread and example are of them)
  const picked = useMemo(() => pickRows(rows, filter, text), [rows, filter, text]);
  const shown = useMemo(() => (groupBy === 'decider' ? byDecider(picked).map(fromDecider) : picked.map(fromRow)), [picked, groupBy]);
  return (
    <section aria-label="Changed requests">
      <h3>Changed requests</h3>
      <div className="impact-filters">
        <label>
          Group by{' '}
          <select value={groupBy} onChange={(e) => setTable({ groupBy: e.target.value as GroupBy })} data-testid="impact-group-by">
            <option value="decider">who decided</option>
            <option value="request">who decided, namespace, user, resource</option>
          </select>
        </label>
        <label>
          Change{' '}
          <select value={filter} onChange={(e) => setTable({ change: e.target.value as Change | 'all' })}>
            <option value="all">all</option>
            {CHANGES.filter((c) => c !== 'unchanged').map((c) => (
              <option key={c} value={c}>
                {CHANGE_LABEL[c]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Filter <input type="search" value={text} onChange={(e) => setTable({ text: e.target.value })} placeholder="policy, namespace, user, resource" />
        </label>
      </div>
      <table className="impact-rows" data-testid="impact-rows" data-group-by={groupBy}>
        <thead>
          <tr>
            <th scope="col">count</th>
            <th scope="col">change</th>
            <th scope="col">decided by</th>
            {HEADS[groupBy].map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
            <th scope="col">example</th>
          </tr>
        </thead>
        <tbody>
          {shown.slice(0, MAX_ROWS).map((l, i) => {
            const ex = l.example;
            const canOpen = !!ex && !!report.requests[ex.auditID];
            return (
              <tr key={i} className={l.change}>
                <td>{l.count.toLocaleString()}</td>
                <td>{CHANGE_LABEL[l.change]}</td>
                <td className="mono">{l.by || '—'}</td>
                {l.cells.map((c, j) => (
                  <td key={j} className={groupBy === 'request' && j > 0 ? 'mono' : undefined}>
                    {c}
                  </td>
                ))}
                <td>
                  {ex ? <span className="impact-message">{`line ${ex.line}${ex.message ? `: ${ex.message}` : ''}`}</span> : null}{' '}
                  {canOpen ? (
                    <button type="button" className="link" onClick={() => openInSimulator(ex.auditID) && onOpen()}>
                      Open in Simulate
                    </button>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {shown.length > MAX_ROWS ? (
        <p className="sim-muted">{`… ${(shown.length - MAX_ROWS).toLocaleString()} more groups: narrow them with the filters, or export the report`}</p>
      ) : null}
    </section>
  );
}
