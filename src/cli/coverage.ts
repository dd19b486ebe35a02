/**
 * `check --cases FILE --coverage`: coverage of the saved cases per policy (src/policy/coverage.ts),
 * printed as a summary, written as JSON (`--coverage-out`) and as LCOV keyed by the YAML file's
 * lines (`--lcov`: each expression's nodes and branches at the line of the policy file where
 * they sit, through the parser's recorded positions), and compared with `--min-coverage`.
 */
import { branchPercent, lineOf, type PolicyCoverage } from '../policy/coverage';
import type { ParsedDocument } from '../yaml';
import { scalarLines } from '../yaml/scalar-lines';

export interface CoverageReport {
  policies: PolicyCoverage[];
  /** Over every policy. */
  nodes: { covered: number; total: number };
  branches: { covered: number; total: number };
  /** Branch coverage in per cent over every policy (100 without branches), what `--min-coverage` compares. */
  percent: number;
}

export function coverageReport(policies: readonly PolicyCoverage[]): CoverageReport {
  const sum = (k: 'nodes' | 'branches') => ({ covered: policies.reduce((n, p) => n + p[k].covered, 0), total: policies.reduce((n, p) => n + p[k].total, 0) });
  const branches = sum('branches');
  return { policies: [...policies], nodes: sum('nodes'), branches, percent: Math.floor(branchPercent({ branches }) * 10) / 10 };
}

/** The text report's coverage lines: one per policy, its findings, the total and the threshold. */
export function coverageText(r: CoverageReport, minCoverage?: number): string[] {
  const lines = r.policies.map((p) => `coverage: ${p.kind} ${p.policy} (${p.cases} case${p.cases === 1 ? '' : 's'}): ${p.summary}`);
  for (const p of r.policies) for (const f of p.findings) lines.push(`coverage: ${p.kind} ${p.policy}: ${f.message}`);
  const total = `coverage: ${r.branches.covered} of ${r.branches.total} branches (${r.percent} %) in ${r.policies.length} polic${r.policies.length === 1 ? 'y' : 'ies'}`;
  lines.push(minCoverage === undefined ? total : `${total}, ${belowMinimum(r, minCoverage) ? 'below' : 'at or above'} --min-coverage ${minCoverage} %`);
  return lines;
}

export const belowMinimum = (r: CoverageReport, minCoverage: number): boolean => r.percent < minCoverage;

/** Where a policy sits: its file, the file's text and its parsed document. */
export interface PolicyLocation {
  file: string;
  text: string;
  document: ParsedDocument;
}

/**
 * LCOV (geninfo's tracefile format) of the policies found in the checked files: per file, `DA`
 * for every line with an expression node (hits: evaluations in which its most-run node ran),
 * `BRDA` for both sides of every branch point (true, then false), and the totals. Policies that
 * are not in a checked file (a workspace file's own copies) are left out.
 */
export function toLcov(r: CoverageReport, locate: (p: PolicyCoverage) => PolicyLocation | undefined): string {
  const files = new Map<string, { da: Map<number, number>; brda: string[]; hit: number }>();
  for (const p of r.policies) {
    const at = locate(p);
    if (!at) continue;
    const f = files.get(at.file) ?? files.set(at.file, { da: new Map(), brda: [], hit: 0 }).get(at.file)!;
    for (const e of [...p.validations, ...p.expressions]) {
      const pos = at.document.positions.positionOf(e.field);
      if (!pos.exact) continue;
      const lines = scalarLines(at.text, pos.value.startOffset, pos.value.endOffset, e.expression);
      const fileLine = (line: number) => lines[Math.min(line, lines.length - 1)] ?? lines[0]!;
      for (const l of e.lines) f.da.set(fileLine(l.line), Math.max(f.da.get(fileLine(l.line)) ?? 0, l.hits));
      for (const b of e.branches) {
        const line = fileLine(lineOf(e.expression, b.from));
        const block = f.brda.length / 2;
        const never = e.true + e.false + e.error === 0 && e.lines.every((l) => l.hits === 0);
        f.brda.push(`BRDA:${line},${block},0,${never ? '-' : b.true}`, `BRDA:${line},${block},1,${never ? '-' : b.false}`);
        f.hit += (b.true > 0 ? 1 : 0) + (b.false > 0 ? 1 : 0);
      }
    }
  }
  const out: string[] = [];
  for (const [file, f] of files) {
    const da = [...f.da].sort((a, b) => a[0] - b[0]);
    out.push(
      'TN:',
      `SF:${file}`,
      ...f.brda,
      `BRF:${f.brda.length}`,
      `BRH:${f.hit}`,
      ...da.map(([l, h]) => `DA:${l},${h}`),
      `LF:${da.length}`,
      `LH:${da.filter(([, h]) => h > 0).length}`,
      'end_of_record',
    );
  }
  return out.length ? `${out.join('\n')}\n` : '';
}
