import { describe, expect, it } from 'vitest';
import { typeCheckIssues } from './cel-markers';

describe('typeCheckIssues', () => {
  it("reads the positions of kube-controller-manager's text, one issue per position with every kind", () => {
    const w =
      "apps/v1, Kind=DaemonSet: ERROR: <input>:1:12: undefined field 'serviceName'\n | object.spec.serviceName != ''\n | ...........^\n\n" +
      "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'serviceName'\n | object.spec.serviceName != ''\n | ...........^\n";
    expect(typeCheckIssues(w)).toEqual([
      { line: 1, column: 12, message: "undefined field 'serviceName'", kinds: ['apps/v1, Kind=DaemonSet', 'apps/v1, Kind=Deployment'] },
    ]);
  });

  it("several issues in one paragraph, the core group's kinds", () => {
    const w = "/v1, Kind=Pod: ERROR: <input>:1:34: undefined field 'limits'\n | x\n | .^\nERROR: <input>:2:5: undefined field 'limits'\n | y\n | .^\n";
    expect(typeCheckIssues(w).map((i) => [i.line, i.column, i.kinds])).toEqual([
      [1, 34, ['/v1, Kind=Pod']],
      [2, 5, ['/v1, Kind=Pod']],
    ]);
  });
});
