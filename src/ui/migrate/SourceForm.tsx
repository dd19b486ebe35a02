/**
 * The form of a Gatekeeper or Kyverno document: a read-only summary (its kind, name and rules;
 * the YAML pane edits it, and its structure is checked as its project's CRD would) and the
 * "Convert to native admission" action.
 */
import { obj, str } from '../../base/json';
import { rulesOf, type SourceKind } from '../../migrate/documents';
import type { WorkspaceDoc } from '../../store';
import { convertToNative } from '../../store/migrate';
import './migrate.css';

export function SourceForm({ doc, kind }: { doc: WorkspaceDoc; kind: SourceKind }) {
  const meta = obj(obj(doc.object).metadata);
  const rules = rulesOf(doc.object);
  return (
    <div className="kind-form source-form" data-testid="source-form">
      <p className="help">
        {`A ${kind.project} ${kind.kind === 'Constraint' ? 'constraint' : kind.kind} (${str(obj(doc.object).apiVersion)}). Edit it in the YAML; its structure is checked against ${kind.project}'s own CRD schema (${kind.source}).`}
      </p>
      <dl className="source-meta">
        <dt>Name</dt>
        <dd className="mono">{str(meta.name) || '—'}</dd>
        {kind.scope === 'Namespaced' || str(meta.namespace) ? (
          <>
            <dt>Namespace</dt>
            <dd className="mono">{str(meta.namespace) || '(the default namespace)'}</dd>
          </>
        ) : null}
      </dl>
      <h3>Rules</h3>
      {rules.length ? (
        <table className="source-rules" data-testid="source-rules">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Type</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r, i) => (
              <tr key={i}>
                <td className="mono">{r.name}</td>
                <td>{r.type}</td>
                <td className="mono">{r.detail ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="help">No rules.</p>
      )}
      <p>
        <button type="button" data-testid="convert-native" onClick={() => convertToNative([doc.id])}>
          Convert to native admission
        </button>
      </p>
    </div>
  );
}
