import { describe, expect, it } from 'vitest';
import { DEFAULT_KUBERNETES_VERSION, KUBERNETES_VERSIONS, RELEASES, releaseLabel, releaseOf, type ReleaseRow } from './releases';

const rows: readonly ReleaseRow[] = RELEASES;

describe('the release table', () => {
  it('the default is the newest row that is not a pre-release (1.38 is offered as one, 1.37 stays the default)', () => {
    expect(KUBERNETES_VERSIONS.at(-1)).toBe('1.38');
    expect(releaseOf('1.38').preRelease).toBe('v1.38.0-beta.0');
    expect(DEFAULT_KUBERNETES_VERSION).toBe('1.37');
    expect(releaseOf().version).toBe('1.37');
    const shipped = rows.filter((r) => !r.preRelease);
    expect(DEFAULT_KUBERNETES_VERSION).toBe(shipped.at(-1)!.version);
  });

  it('the picker names a pre-release row by its tag', () => {
    expect(releaseLabel('1.38')).toBe('1.38 (pre-release v1.38.0-beta.0)');
    expect(releaseLabel('1.37')).toBe('1.37');
  });

  it('every row names an engine generation no older than itself (an engine emulates older releases), and each generation answers its own release', () => {
    for (const r of rows) expect(Number(r.engine.slice(2))).toBeGreaterThanOrEqual(Number(r.version.slice(2)));
    for (const engine of new Set(rows.map((r) => r.engine))) expect(rows.some((r) => r.version === engine && r.engine === engine)).toBe(true);
  });

  it('1.38: compatibility 1.37, the CIDR v1 library, 1.37 plus the ConditionalAuthorization gate (alpha, off), the chain plus staticOrder', () => {
    const r = releaseOf('1.38');
    const prev = releaseOf('1.37');
    expect(r.celCompatibility).toBe('1.37');
    expect(r.celLibraries).toEqual(['CIDR v1 (isMask())']);
    expect(r.gates).toEqual({ ...prev.gates, ConditionalAuthorization: false });
    expect(r.served).toEqual(prev.served);
    // the chain as 1.37's, but for the mutating webhook plugin's staticOrder (new in 1.38)
    expect(r.chain).toEqual({ ...prev.chain, webhookStaticOrder: true });
    expect(prev.chain.webhookStaticOrder).toBe(false);
  });
});
