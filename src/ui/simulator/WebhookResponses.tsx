/** The response assumed for each webhook of the workspace: allow, deny, unavailable, a JSON Patch, or warnings (the Simulate and Impact views). */
import { useId } from 'react';
import { WEBHOOK_RESPONSES, defaultResponse, parsePatch, type WebhookResponseDraft, type WebhookResponseKind } from '../../request';
import type { WorkspaceWebhook } from '../../store/simulator';

const LABEL: Record<WebhookResponseKind, string> = {
  allow: 'allow',
  deny: 'deny',
  unavailable: 'unavailable (down / timeout)',
  patch: 'allow with a JSON Patch',
  warnings: 'allow with warnings',
};

export function WebhookResponses({
  webhooks,
  responses,
  onChange,
  empty = 'The workspace has no webhooks: only policies run.',
}: {
  /** A webhook without a kind is known only by name (an answers file's: the cluster's webhooks). */
  webhooks: readonly (Pick<WorkspaceWebhook, 'name' | 'docId'> & { kind?: WorkspaceWebhook['kind'] })[];
  responses: Record<string, WebhookResponseDraft>;
  onChange(r: Record<string, WebhookResponseDraft>): void;
  /** What to say when there is no webhook. */
  empty?: string;
}) {
  const uid = useId();
  if (!webhooks.length) return <p className="sim-muted">{empty}</p>;
  const set = (name: string, patch: Partial<WebhookResponseDraft>) =>
    onChange({ ...responses, [name]: { ...(responses[name] ?? defaultResponse()), ...patch } });
  return (
    <fieldset className="sim-responses">
      <legend>Webhook responses</legend>
      {webhooks.map((w, i) => {
        const r = responses[w.name] ?? defaultResponse();
        const id = `${uid}-${i}`;
        const patchError =
          r.response === 'patch'
            ? (() => {
                const p = parsePatch(r.patch);
                return 'error' in p ? p.error : undefined;
              })()
            : undefined;
        return (
          <div key={`${w.docId}-${w.name}`} className="sim-response" data-webhook={w.name}>
            <label htmlFor={id}>
              <span className="sim-kind">{w.kind === 'MutatingWebhookConfiguration' ? 'mutating' : w.kind ? 'validating' : 'by name'}</span>{' '}
              <code>{w.name}</code>
            </label>
            <select id={id} value={r.response} onChange={(e) => set(w.name, { response: e.target.value as WebhookResponseKind })}>
              {WEBHOOK_RESPONSES.map((k) => (
                <option key={k} value={k}>
                  {LABEL[k]}
                </option>
              ))}
            </select>
            {r.response === 'patch' ? (
              <>
                <label className="sr-only" htmlFor={`${id}-patch`}>
                  JSON Patch of {w.name}
                </label>
                <textarea
                  id={`${id}-patch`}
                  className="mono"
                  rows={3}
                  value={r.patch}
                  spellCheck={false}
                  placeholder='[{"op": "add", "path": "/metadata/labels/x", "value": "y"}]'
                  aria-invalid={patchError ? true : undefined}
                  onChange={(e) => set(w.name, { patch: e.target.value })}
                />
                {patchError ? (
                  <div className="ti-error" role="alert">
                    {patchError}
                  </div>
                ) : null}
              </>
            ) : null}
            {r.response === 'warnings' ? (
              <>
                <label className="sr-only" htmlFor={`${id}-warnings`}>
                  Warnings of {w.name}, one a line
                </label>
                <textarea
                  id={`${id}-warnings`}
                  rows={2}
                  value={r.warnings}
                  placeholder="one warning a line"
                  onChange={(e) => set(w.name, { warnings: e.target.value })}
                />
              </>
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}
