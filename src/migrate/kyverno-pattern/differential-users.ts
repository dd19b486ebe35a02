/**
 * Who asks the differential's requests (test support): the default user, the users a rule's
 * subjects name, and for a rule that reads request.userInfo several users (texts JSON escapes, no
 * groups, groups named as the objects are). The same user is given to Kyverno and the Workbench.
 */
import type { Obj } from '../../base/json';

/** The user the differential's requests come from unless a rule's subjects ask for others. */
export const TEST_USER: UserInfo = { username: 'kyverno-test', groups: ['system:authenticated'] };

export interface UserInfo {
  username: string;
  groups: string[];
}

/** Users for rules that read request.userInfo: characters JSON escapes, a user without groups, several groups. */
export const USERS: UserInfo[] = [
  TEST_USER,
  { username: 'jane "j" <doe> & \\ \u2028 \t', groups: ['system:authenticated', 'dev&ops'] },
  { username: 'system:serviceaccount:team:builder', groups: [] },
  { username: 'x\u0001y', groups: ['b', 'a', 'system:masters'] },
];

/** Users for the subjects of a rule's match and exclude (wildcards filled in, or the names as they are, which Kyverno's wildcards also match), TEST_USER last; none without subjects. */
export function subjectUsers(rule: Obj): UserInfo[] {
  const subjects: Obj[] = [];
  const collect = (m: unknown) => {
    const o = (m ?? {}) as Obj;
    for (const e of [o, ...((o.any as Obj[] | undefined) ?? []), ...((o.all as Obj[] | undefined) ?? [])])
      subjects.push(...(Array.isArray(e.subjects) ? (e.subjects as Obj[]) : []));
  };
  collect(rule.match);
  collect(rule.exclude);
  if (!subjects.length) return [];
  const fill = (s: string) => s.replace(/\*/g, 'x').replace(/\?/g, 'y');
  const users = subjects.flatMap((s): UserInfo[] => {
    const name = String(s.name ?? '');
    const username = s.kind === 'ServiceAccount' ? `system:serviceaccount:${String(s.namespace ?? '')}:${name}` : name;
    if (s.kind === 'Group')
      return [
        { username: 'someone', groups: [fill(name)] },
        { username: 'someone', groups: ['system:authenticated', name] },
        { username: 'someone', groups: [] },
      ];
    return [
      { username: fill(username), groups: ['system:authenticated'] },
      { username, groups: [] },
      { username: `${fill(username)}x`, groups: ['system:authenticated'] },
    ];
  });
  return [...users, TEST_USER];
}

/** Users in groups named as the objects are (their names' first word, and whole), for rules that compare the user with the object. */
export function namedUsers(seeds: readonly Obj[]): UserInfo[] {
  const names = [...new Set(seeds.map((o) => String((o.metadata as Obj | undefined)?.name ?? '')).filter(Boolean))].slice(0, 4);
  return names.map((n) => ({ username: `user-${n}`, groups: ['system:authenticated', n.split(/[-.]/)[0], n] }));
}
