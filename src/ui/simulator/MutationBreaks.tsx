/**
 * M06 mutation-breaks-validation, from a simulation: each validator that rejects the object as
 * the mutating phase left it but admits it as sent, with links to the validator's field and to
 * the mutations before it (src/admission/mutation-check.ts).
 */
import type { WorkspaceDoc } from '../../store';
import type { MutationBreak } from '../../store/simulator';
import { StepLink } from './Timeline';

export function MutationBreaks({ breaks, docs }: { breaks: readonly MutationBreak[]; docs: readonly WorkspaceDoc[] }) {
  if (!breaks.length) return null;
  return (
    <ul className="sim-breaks" aria-label="Mutations that break validation" data-testid="sim-breaks">
      {breaks.map((b, i) => (
        <li key={i}>
          <span className="badge">M06</span> mutation breaks validation: <StepLink step={b.validator} docs={docs} /> rejects the object as mutated by{' '}
          {b.mutators.map((m, j) => (
            <span key={j}>
              {j ? ', ' : ''}
              <StepLink step={m} docs={docs} />
            </span>
          ))}
          , but admits it as sent.
          <div className="sim-muted">
            Make the mutation produce what the validation accepts, or let the validation allow it (Kubernetes: "ensure that mutations don't violate
            validations").
          </div>
        </li>
      ))}
    </ul>
  );
}
