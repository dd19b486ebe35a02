/**
 * Coverage of a document's saved cases, as the editor shows it: gutter marks on the YAML lines of
 * the policy's expressions (covered / partly / never), the summary line and the findings. Set by
 * the policy panel after its cases run (src/store/policy-run.ts `caseCoverage`, loaded with the
 * panel); read by the YAML pane. Plain data for the text it was computed on: marks of another text
 * are not shown.
 */
import { appStore } from './app-stores';
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';

export type CoverageMarkState = 'covered' | 'partly' | 'never';

/** One YAML line that holds a policy expression (1-based). */
export interface CoverageMark {
  line: number;
  state: CoverageMarkState;
  /** What the hover says: e.g. "spec.validations[0].expression: 3 of 4 nodes ran; || true 1, false 0". */
  title: string;
}

export interface DocCoverage {
  /** The document text the marks are for. */
  text: string;
  marks: CoverageMark[];
  summary: string;
  findings: { code: string; case?: string; message: string }[];
}

export const coverageStore = appStore(createStore<{ byDoc: Record<string, DocCoverage> }>()(() => ({ byDoc: {} })));

export function setDocCoverage(docId: string, coverage: DocCoverage | undefined): void {
  coverageStore.setState((s) => {
    const byDoc = { ...s.byDoc };
    if (coverage) byDoc[docId] = coverage;
    else delete byDoc[docId];
    return { byDoc };
  });
}

export const useDocCoverage = (docId: string): DocCoverage | undefined => useStore(coverageStore, (s) => s.byDoc[docId]);
