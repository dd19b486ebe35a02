/** A JSON diff (src/policy diffJson) as a table: op, path, before, after. Shared by the policy run and the simulator. */
import type { DiffEntry } from '../../base/jsonpatch';
import { displayValue } from '../display';
import './policy.css';

const show = (v: unknown) => (v === undefined ? '—' : typeof v === 'string' ? JSON.stringify(v) : displayValue(v));

export function DiffTable({ diff, caption, testId = 'policy-diff' }: { diff: readonly DiffEntry[]; caption: string; testId?: string }) {
  if (!diff.length) return <p className="pt-muted">{caption}: no changes.</p>;
  return (
    <table className="pt-diff" data-testid={testId}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">op</th>
          <th scope="col">path</th>
          <th scope="col">before</th>
          <th scope="col">after</th>
        </tr>
      </thead>
      <tbody>
        {diff.map((d, i) => (
          <tr key={i} className={`pt-diff-${d.op}`}>
            <td>{d.op}</td>
            <td>
              <code>{d.path}</code>
            </td>
            <td>
              <code>{d.op === 'add' ? '' : show(d.before)}</code>
            </td>
            <td>
              <code>{d.op === 'remove' ? '' : show(d.after)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
