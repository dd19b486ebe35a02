import { describe, expect, it } from 'vitest';
import { inClusterService, urlHost } from './in-cluster-url';

describe('in-cluster webhook URLs', () => {
  it('reads the host of a URL', () => {
    expect(urlHost('https://Hook.NS.svc:8443/validate?x=1')).toBe('hook.ns.svc');
    expect(urlHost('hook.ns.svc')).toBe('');
  });

  it('names the Service of <service>.<namespace>.svc[.cluster.local], with or without port and path', () => {
    expect(inClusterService('https://podguard.podguard-system.svc')).toEqual({ name: 'podguard', namespace: 'podguard-system' });
    expect(inClusterService('https://podguard.podguard-system.svc:443/validate')).toEqual({ name: 'podguard', namespace: 'podguard-system' });
    expect(inClusterService('https://podguard.podguard-system.svc.cluster.local/validate')).toEqual({ name: 'podguard', namespace: 'podguard-system' });
  });

  it('names none for other hosts', () => {
    for (const url of [
      'https://guard.example.com/validate',
      'https://podguard.svc/x',
      'https://a.b.c.svc/x',
      'https://10.0.0.1/x',
      'https://podguard.ns.svc.example.com/x',
      '',
    ])
      expect(inClusterService(url), url).toBeUndefined();
  });
});
