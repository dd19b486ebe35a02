/**
 * The authorizer's decision assumed for the simulated request, shown while the workspace has the
 * ConditionalAuthorization gate on (the AuthorizationConditionsEnforcer step: src/admission/conditions.ts).
 */
import { useId } from 'react';
import { CONDITIONAL_DECISIONS, type ConditionalAuthorization } from '../../request';

const LABEL: Record<ConditionalAuthorization['decision'], string> = {
  none: 'unconditional allow',
  allow: 'conditional: conditions allow',
  deny: 'conditional: conditions deny (403)',
  error: 'conditional: evaluation error (500)',
};

export function AuthorizationAnswer({ value, onChange }: { value?: ConditionalAuthorization; onChange(v: ConditionalAuthorization | undefined): void }) {
  const uid = useId();
  const decision = value?.decision ?? 'none';
  return (
    <fieldset className="sim-responses" data-testid="authorization-answer">
      <legend>Authorizer decision (assumed)</legend>
      <div className="sim-response">
        <label htmlFor={`${uid}-d`}>decision</label>
        <select
          id={`${uid}-d`}
          value={decision}
          onChange={(e) => {
            const d = e.target.value as ConditionalAuthorization['decision'];
            onChange(d === 'none' ? undefined : { decision: d, ...(value?.reason ? { reason: value.reason } : {}) });
          }}
        >
          {CONDITIONAL_DECISIONS.map((d) => (
            <option key={d} value={d}>
              {LABEL[d]}
            </option>
          ))}
        </select>
        {decision !== 'none' ? (
          <>
            <label htmlFor={`${uid}-r`}>{decision === 'error' ? 'error' : 'reason'}</label>
            <input
              id={`${uid}-r`}
              value={value?.reason ?? ''}
              onChange={(e) => onChange({ decision, ...(e.target.value ? { reason: e.target.value } : {}) })}
            />
          </>
        ) : null}
      </div>
    </fieldset>
  );
}
