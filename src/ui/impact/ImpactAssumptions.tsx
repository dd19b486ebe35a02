/**
 * What the Impact run assumes, as the CLI can say it: the answer of each webhook (the Simulate
 * view's vocabulary: allow, deny, unavailable, a JSON Patch, warnings), set here for the
 * workspace's webhooks or read from an answers file (the CLI's `--webhook-answers`, which can name
 * the snapshot's webhooks too), and who creates the existing objects (`--user`, `--group`).
 */
import { useId, useMemo, useRef } from 'react';
import type { WorkspaceDoc } from '../../store';
import { DEFAULT_IMPACT_USER, openWebhookAnswers, setImpactOptions, type ImpactState } from '../../store/impact';
import { webhooksOf } from '../../store/simulator';
import { WebhookResponses } from '../simulator/WebhookResponses';

const splitGroups = (s: string) =>
  s
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);

export function ImpactAssumptions({ docs, state }: { docs: readonly WorkspaceDoc[]; state: Pick<ImpactState, 'webhooks' | 'user' | 'running'> }) {
  const uid = useId();
  const answersInput = useRef<HTMLInputElement>(null);
  const webhooks = useMemo(() => {
    const mine = webhooksOf(docs);
    const names = new Set(mine.map((w) => w.name));
    // answers for webhooks the workspace does not have: the snapshot's, named in an answers file
    const others = Object.keys(state.webhooks)
      .filter((n) => !names.has(n))
      .map((name) => ({ name, docId: 'answers' }));
    return [...mine, ...others];
  }, [docs, state.webhooks]);
  const set = Object.values(state.webhooks).filter((r) => r.response !== 'allow').length;
  return (
    <details className="impact-assumptions" data-testid="impact-assumptions">
      <summary>
        {`Assumed: ${set ? `${set} webhook answer${set === 1 ? '' : 's'} set, every other webhook allows` : 'every webhook allows'}; existing objects created by ${state.user.username || DEFAULT_IMPACT_USER.username}`}
      </summary>
      <input
        ref={answersInput}
        type="file"
        hidden
        accept=".yaml,.yml,.json"
        data-testid="impact-answers-input"
        onChange={(e) => {
          const f = e.target.files?.[0];
          // the same file can be opened again after an edit
          e.target.value = '';
          if (f) void openWebhookAnswers(f);
        }}
      />
      <p className="sim-muted">
        Webhooks are not called: each gives the answer set here (default allow). An answers file (YAML or JSON, as the CLI's <code>--webhook-answers</code>)
        maps webhook names, the snapshot's too, to <code>allow</code>, <code>deny</code>, <code>unavailable</code>, <code>{'{patch: [...]}'}</code> or{' '}
        <code>{'{warnings: [...]}'}</code>.{' '}
        <button type="button" onClick={() => answersInput.current?.click()} disabled={state.running}>
          Open webhook answers…
        </button>{' '}
        {Object.keys(state.webhooks).length ? (
          <button type="button" className="link" onClick={() => setImpactOptions({ webhooks: {} })} disabled={state.running}>
            reset: every webhook allows
          </button>
        ) : null}
      </p>
      <WebhookResponses
        webhooks={webhooks}
        responses={state.webhooks}
        onChange={(w) => setImpactOptions({ webhooks: w })}
        empty="The workspace has no webhooks; the snapshot's allow unless an answers file says otherwise."
      />
      <fieldset className="impact-user">
        <legend>Who creates the existing objects</legend>
        <label>
          user{' '}
          <input
            type="text"
            value={state.user.username}
            spellCheck={false}
            data-testid="impact-user"
            onChange={(e) => setImpactOptions({ user: { ...state.user, username: e.target.value } })}
          />
        </label>{' '}
        <label>
          groups (comma-separated){' '}
          <input
            id={`${uid}-groups`}
            type="text"
            defaultValue={state.user.groups.join(', ')}
            spellCheck={false}
            data-testid="impact-groups"
            onChange={(e) => setImpactOptions({ user: { ...state.user, groups: splitGroups(e.target.value) } })}
          />
        </label>
      </fieldset>
    </details>
  );
}
