/** The lightbulb of a problem with quick fixes: opens a short list of fixes; choosing one opens its preview. */
import { useState } from 'react';
import { openFix, type Problem } from '../store';

export function FixButton({ docId, problem }: { docId: string; problem: Problem }) {
  const [open, setOpen] = useState(false);
  const fixes = problem.fixes ?? [];
  if (!fixes.length) return null;
  const label = `${problem.label} ${problem.field || '(object)'}: ${problem.message}`;
  return (
    <span className="fixes">
      <button
        type="button"
        className="icon lightbulb"
        aria-expanded={open}
        aria-label={`Quick fixes for ${problem.label} at ${problem.field || 'the object'}`}
        title="Quick fixes"
        data-fix-for={`${problem.label} ${problem.field}`}
        onClick={() => setOpen(!open)}
      >
        💡
      </button>
      {open ? (
        <span className="fix-list" role="group" aria-label="Quick fixes">
          {fixes.map((fix, i) => (
            <button
              key={i}
              type="button"
              className="fix"
              onClick={() => {
                setOpen(false);
                openFix({ docId, problem: label, fix });
              }}
            >
              {fix.title}…
            </button>
          ))}
        </span>
      ) : null}
    </span>
  );
}
