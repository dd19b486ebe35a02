/**
 * The form of a Gatekeeper or Kyverno document: a read-only summary (its kind, name and rules;
 * the YAML pane edits it, and its structure is checked as its project's CRD would) and the
 * "Convert to native admission" action.
 */
import { obj, str, type Obj } from '../../base/json';
import { isSourcePolicy } from '../../migrate';
import { rulesOf, templateOf, type SourceKind } from '../../migrate/documents';
import { useWorkspace, workspace, type WorkspaceDoc } from '../../store';
import { convertToNative } from '../../store/migrate';
import './migrate.css';

export function SourceForm({ doc, kind }: { doc: WorkspaceDoc; kind: SourceKind }) {
  const meta = obj(obj(doc.object).metadata);
  const rules = rulesOf(doc.object);
  // A constraint's template, when the workspace has it (the constraint's kind and parameters come from it).
  const template = useWorkspace((s) => {
    if (kind.kind !== 'Constraint') return undefined;
    const t = templateOf(
      doc.object,
      s.docs.map((d) => d.object),
    );
    return t && s.docs.find((d) => d.object === t);
  });
  const converts = isSourcePolicy(doc.object as Obj);
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
        {kind.kind === 'Constraint' ? (
          <>
            <dt>Template</dt>
            <dd className="mono" data-testid="constraint-template">
              {template ? (
                <button type="button" className="link" onClick={() => workspace.getState().select(template.id)}>
                  {str(obj(template.object).kind)}/{str(obj(obj(template.object).metadata).name)}
                </button>
              ) : (
                `none in the workspace defines ${str(obj(doc.object).kind)}`
              )}
            </dd>
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
        <button
          type="button"
          data-testid="convert-native"
          disabled={!converts}
          title={
            converts
              ? 'Add the produced policies and bindings as new documents; this document stays as it is'
              : `No converter of this build reads ${kind.project} documents`
          }
          onClick={() => convertToNative([doc.id])}
        >
          Convert to native admission
        </button>
      </p>
    </div>
  );
}
