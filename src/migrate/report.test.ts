import { describe, expect, it } from 'vitest';
import { conversionFiles, conversionMarkdown, conversionText, countByStatus } from './report';
import type { Conversion } from './types';

const vap = (name: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: {} });
const conversion: Conversion = {
  objects: [vap('Team Labels'), vap('team-labels'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', namespace: 'ns' }, data: {} }],
  rules: [
    { source: { kind: 'ClusterPolicy', name: 'a', rule: 'r|1' }, status: 'exact', produced: ['ValidatingAdmissionPolicy/team-labels'] },
    { source: { kind: 'Policy', name: 'b', namespace: 'ns', rule: 'r2' }, status: 'unsupported', reason: 'uses http.Get\nin a variable', produced: [] },
  ],
};

describe('conversion reports', () => {
  it('counts by status', () => {
    expect(countByStatus(conversion.rules)).toEqual({ exact: 1, different: 0, unsupported: 1 });
  });

  it('prints one line per rule, its produced objects under it, and the documents no converter read', () => {
    expect(conversionText(conversion, [{ kind: 'ValidatingPolicy', name: 'c' }]).split('\n')).toEqual([
      'exact           ClusterPolicy/a rule r|1',
      '                  → ValidatingAdmissionPolicy/team-labels',
      'not convertible Policy/ns/b rule r2: uses http.Get in a variable',
      'not read        ValidatingPolicy/c: no converter for its project in this build',
      '2 rule(s): 1 exact, 0 different, 1 not convertible; 1 document(s) not read; 3 object(s) produced',
      '',
    ]);
  });

  it('keeps the markdown table whole: pipes escaped, line breaks joined', () => {
    const md = conversionMarkdown(conversion);
    expect(md).toContain('| exact | ClusterPolicy/a | r\\|1 |  | `ValidatingAdmissionPolicy/team-labels` |');
    expect(md).toContain('| not convertible | Policy/ns/b | r2 | uses http.Get in a variable |  |');
  });

  it('says under a rule, and in its Reason cell, that its document is one of several of its kind and name', () => {
    const dup: Conversion = {
      objects: [],
      rules: [
        {
          source: { kind: 'ClusterPolicy', name: 'a', rule: 'r', occurrence: 2 },
          status: 'different',
          reason: 'why',
          produced: ['ValidatingAdmissionPolicy/cpol-a-2'],
          duplicate: 'ClusterPolicy a is in the input 2 times',
        },
      ],
    };
    expect(conversionText(dup).split('\n').slice(0, 3)).toEqual([
      'different       ClusterPolicy/a rule r: why',
      '                  → ValidatingAdmissionPolicy/cpol-a-2',
      '                  ! ClusterPolicy a is in the input 2 times',
    ]);
    expect(conversionMarkdown(dup)).toContain(
      '| different | ClusterPolicy/a | r | why; ClusterPolicy a is in the input 2 times | `ValidatingAdmissionPolicy/cpol-a-2` |',
    );
  });

  it('writes one file per object with unique lowercase names, the sources when kept, and MIGRATION.md', () => {
    const files = conversionFiles(conversion, { sources: [{ object: vap('x'), text: 'kept: as is' }] });
    expect(Object.keys(files)).toEqual([
      'native/validatingadmissionpolicy-team-labels.yaml',
      'native/validatingadmissionpolicy-team-labels-2.yaml',
      'native/configmap-ns-p.yaml',
      'source/validatingadmissionpolicy-x.yaml',
      'MIGRATION.md',
    ]);
    expect(files['source/validatingadmissionpolicy-x.yaml']).toBe('kept: as is\n');
    expect(files['native/configmap-ns-p.yaml']).toMatch(/^apiVersion: v1\nkind: ConfigMap\nmetadata:\n {2}name: p\n {2}namespace: ns\n/);
    expect(Object.keys(conversionFiles(conversion, { summary: false }))).not.toContain('MIGRATION.md');
  });
});
