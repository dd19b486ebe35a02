/** The lightbulb of a problem with quick fixes: opens a short list of fixes; choosing one opens its preview. */
import { useState } from 'react';
import type { Fix } from '../k8s';
import { checks, openFix, workspace, type Problem } from '../store';

/**
 * The fix as built from the document's current object. A lightbulb is not re-rendered while
 * its problem reads the same, so its fixes may have been built from an older version of the
 * object (and a fix may carry values read from it).
 */
function currentFix(docId: string, problem: Problem, fix: Fix): Fix {
  const { docs } = workspace.getState();
  const doc = docs.find((d) => d.id === docId);
  // a lightbulb is drawn from the checks' problems: they are loaded
  const now =
    doc &&
    checks()
      ?.docProblems(doc, docs)
      .items.find((p) => p.field === problem.field && p.label === problem.label && p.message === problem.message);
  return now?.fixes?.find((f) => f.title === fix.title) ?? fix;
}

/** A lightbulb drawn inline: an emoji shows as an empty box where no emoji font is installed (and costs a font fallback search). */
function LightbulbIcon() {
  return (
    <svg className="lightbulb-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <path d="M8 1.5a4.5 4.5 0 0 0-2.6 8.2c.4.3.6.7.6 1.1V12h4v-1.2c0-.4.2-.8.6-1.1A4.5 4.5 0 0 0 8 1.5Z" fill="#f5c400" stroke="#7a5c00" strokeWidth="1" />
      <path d="M6 13.2h4M6.6 14.7h2.8" stroke="#7a5c00" strokeWidth="1.2" strokeLinecap="round" />
    </svg>
  );
}

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
        <LightbulbIcon />
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
                openFix({ docId, problem: label, fix: currentFix(docId, problem, fix) });
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
