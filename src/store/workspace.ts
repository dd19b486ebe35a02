/**
 * The workspace store (zustand): documents, selection, undo/redo and autosave.
 * Every change goes through an action here; components only read and call.
 */
import { appStore } from './app-stores';
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
// the k8s modules themselves, not its index: the index brings validation and the lints into the first load (src/store/checks.ts)
import { apiVersionOf, KINDS, kindSpecOf } from '../k8s/registry/kinds';
import { convertToV1 } from '../k8s/convert';
import { DEFAULT_FIELD_VALIDATION, type FieldValidation } from '../k8s/field-validation';
import { DEFAULT_STATIC_ORDER, type StaticOrder } from '../k8s/static-manifests';
import type { WorkspaceGate } from '../base/releases';
import type { Fix } from '../k8s';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../base';
import { platformOf, type PlatformId } from '../base/platforms';
import { clone, getIn, insertAt, moveAt, removeAt, setIn } from '../k8s/edit';
import type { PathSegment } from '../base/path';
import { formatPath } from '../base/path-format';
import { sampleWorkspace, TEMPLATES } from '../k8s/templates';
import {
  carryParse,
  copiedSlot,
  docFromObject,
  docWithText,
  editObject as editDocObject,
  hasGeneratedText,
  importText,
  newId,
  withObject,
  withStatic,
  withText,
  type WorkspaceDoc,
} from './documents';
import { emptyHistory, record, redo, undo, type History } from './history';

export interface Snapshot {
  docs: WorkspaceDoc[];
  selectedId: string | null;
}

/** What a saved workspace restores: the documents, the target release and whether every document is a static manifest. */
export type SavedWorkspace = Snapshot & {
  kubernetesVersion?: KubernetesVersion;
  platform?: PlatformId;
  staticManifests?: boolean;
  fieldValidation?: FieldValidation;
  staticOrder?: StaticOrder;
  featureGates?: readonly WorkspaceGate[];
};

export interface Notice {
  level: 'error' | 'info';
  text: string;
  /** One button beside the text (Replace workspace with these files, Undo …). */
  action?: { label: string; run: () => void };
  /** Stays until dismissed (the others dismiss themselves after a while). */
  sticky?: boolean;
  /** Set by notify: what dismissNotice takes. */
  id?: number;
}

export interface WorkspaceState extends Snapshot {
  /** The target Kubernetes release: served apiVersions, validation, CEL environment, lints, simulation. */
  kubernetesVersion: KubernetesVersion;
  /** A target platform (base/platforms.ts) built on kubernetesVersion, or upstream Kubernetes when absent. */
  platform?: PlatformId;
  /** Every admission document of the workspace is a static manifest (besides the documents marked one by one). */
  staticManifests: boolean;
  /** The writes' field validation directive: unknown fields are errors (Strict, as kubectl sends), warnings (Warn) or nothing (Ignore). */
  fieldValidation: FieldValidation;
  /** Where static mutating webhooks run among the API ones (the MutatingAdmissionWebhook plugin's staticOrder; releases with chain.webhookStaticOrder). */
  staticOrder: StaticOrder;
  /** Feature gates turned on beyond the release's defaults (base/releases.ts WORKSPACE_GATES). */
  featureGates: readonly WorkspaceGate[];
  history: History<Snapshot>;
  notices: Notice[];
  /**
   * Bumped whenever something problems are derived from arrives or changes (CEL answers, caBundle
   * inspections, the target release), so that derived problems are computed again.
   */
  problemsRevision: number;
  celState: 'idle' | 'loading' | 'ready' | 'failed';
  celMessage?: string;
  /** A request to focus a field, from the problems list (seq changes on every request). */
  focus?: { docId: string; path: string; seq: number };
  /** The field the last form edit touched (the YAML pane scrolls to it; seq changes on every edit). */
  edited?: { docId: string; path: readonly PathSegment[]; seq: number };
  /**
   * The field (as formatted, `webhooks[0].timeoutSeconds`) of the last form edit the text refused
   * (seq changes on every refusal): a control showing what was typed shows the document's value again.
   */
  refused?: { docId: string; path: string; seq: number };
}

export interface WorkspaceActions {
  select(id: string): void;
  addFromTemplate(kind: string): void;
  duplicate(id: string): void;
  rename(id: string, name: string): void;
  remove(id: string): void;
  /** The user typed in the YAML pane. */
  setText(id: string, text: string): void;
  /** A form control changed one field (undefined removes it). */
  setField(id: string, path: readonly PathSegment[], value: unknown): void;
  insertItem(id: string, listPath: readonly PathSegment[], element: unknown, index?: number): void;
  removeItem(id: string, listPath: readonly PathSegment[], index: number): void;
  moveItem(id: string, listPath: readonly PathSegment[], from: number, to: number): void;
  /** Import pasted, opened or dropped text; returns the new documents' ids. */
  importText(text: string, origin: string): string[];
  replaceAll(docs: WorkspaceDoc[]): void;
  /** Start from an empty workspace (one undo step brings the documents back). */
  clearAll(): void;
  /** Keep only these documents (after an import: replace the workspace with the imported files); one undo step. */
  keepOnly(ids: readonly string[]): void;
  /** Target upstream Kubernetes at this release (no platform). */
  setKubernetesVersion(version: KubernetesVersion): void;
  /** Target a platform: its Kubernetes release with it. */
  setPlatform(platform: PlatformId): void;
  /** Mark one document a static manifest (or an API object again): one undo step. */
  setDocStatic(id: string, on: boolean): void;
  /** Mark the whole workspace a static manifest set. */
  setStaticManifests(on: boolean): void;
  /** The writes' field validation directive (re-derives problems). */
  setFieldValidation(mode: FieldValidation): void;
  setStaticOrder(order: StaticOrder): void;
  setFeatureGate(gate: WorkspaceGate, on: boolean): void;
  /** Rewrite an old document (v1beta1 webhooks, v1alpha1/v1beta1 policies) as v1; the notes say what was made explicit. */
  convertToV1(id: string): void;
  /** Add documents made from objects (converted policies), after the others, each with its own text: one undo step; returns their ids. */
  addDocuments(objects: readonly unknown[], origin: string): string[];
  /** Apply a quick fix to a document (and add the documents it creates): one undo step. */
  applyFix(id: string, fix: Fix, params?: Readonly<Record<string, string>>): void;
  undo(): void;
  redo(): void;
  focusField(docId: string, path: string): void;
  dismissNotice(id: number): void;
  notify(notice: Notice): void;
}

export type Workspace = WorkspaceState & WorkspaceActions;

const snapshot = (s: WorkspaceState): Snapshot => ({ docs: s.docs, selectedId: s.selectedId });

/** The snapshot undo or redo brings back, its changed documents' texts read in part from the ones on screen (carryParse). */
function carried(current: readonly WorkspaceDoc[], state: Snapshot): Snapshot {
  const byId = new Map(current.map((d) => [d.id, d]));
  for (const d of state.docs) {
    const now = byId.get(d.id);
    if (now && now !== d) carryParse(now, d);
  }
  return state;
}

/**
 * The snapshot a history step brings back, showing the document the step changes (the first whose
 * document differs from the one on screen): a redo otherwise showed the document selected when it
 * was undone, where nothing changes.
 */
function showingChange(current: readonly WorkspaceDoc[], state: Snapshot): Snapshot {
  const now = new Map(current.map((d) => [d.id, d]));
  const changed = state.docs.find((d) => now.get(d.id) !== d);
  return changed ? { ...state, selectedId: changed.id } : state;
}

let noticeSeq = 0;

export function createWorkspace(initial: SavedWorkspace) {
  return createStore<Workspace>()((set, get) => {
    /** Apply a change to the documents, recording an undo step. */
    const change = (next: Partial<Snapshot> & Pick<WorkspaceState, 'edited'>, coalesceKey?: string) =>
      set((s) => ({ ...next, history: record(s.history, snapshot(s), coalesceKey) }));

    const mapDoc = (id: string, f: (d: WorkspaceDoc) => WorkspaceDoc, coalesceKey?: string, edited?: readonly PathSegment[]) => {
      const docs = get().docs;
      const i = docs.findIndex((d) => d.id === id);
      if (i < 0) return;
      const next = f(docs[i]);
      if (next === docs[i]) return;
      const mark = edited ? { edited: { docId: id, path: edited, seq: (get().edited?.seq ?? 0) + 1 } } : {};
      change({ docs: docs.map((d, j) => (j === i ? next : d)), ...mark }, coalesceKey);
    };

    /** Say why a structured change was not written (once, not at every keystroke). */
    const refuse = (text: string) => {
      const notices = get().notices;
      if (notices[notices.length - 1]?.text !== text) get().notify({ level: 'error', text });
    };

    /** A structured change, written into the document's text (or refused, with a notice); `at` is the field it touched; true when made. */
    const editObject = (id: string, f: (o: unknown) => unknown, coalesceKey?: string, at?: readonly PathSegment[]): boolean => {
      let made = false;
      mapDoc(
        id,
        (d) => {
          const r = editDocObject(d, f(d.object));
          if (r.refused) {
            refuse(r.refused);
            if (at) set((s) => ({ refused: { docId: id, path: formatPath(at), seq: (s.refused?.seq ?? 0) + 1 } }));
          }
          made = !r.refused;
          return r.doc;
        },
        coalesceKey,
        at,
      );
      return made;
    };

    return {
      kubernetesVersion: DEFAULT_KUBERNETES_VERSION,
      staticManifests: false,
      fieldValidation: DEFAULT_FIELD_VALIDATION,
      staticOrder: DEFAULT_STATIC_ORDER,
      featureGates: [],
      ...initial,
      history: emptyHistory(),
      notices: [],
      problemsRevision: 0,
      celState: 'idle',

      select: (id) => set({ selectedId: id }),

      addFromTemplate: (kind) => {
        const make = TEMPLATES[kind];
        const spec = KINDS.find((k) => k.kind === kind);
        if (!make || !spec) return;
        const object: Record<string, unknown> = { ...make(), apiVersion: apiVersionOf(spec) };
        const taken = new Set(get().docs.map((d) => (d.object as { metadata?: { name?: string } })?.metadata?.name));
        const base = (object.metadata as { name: string }).name;
        let name = base;
        for (let n = 2; taken.has(name); n++) name = base.replace(/^([^.]*)/, `$1-${n}`);
        const doc = docWithText(setIn(object, ['metadata', 'name'], name), 'template');
        change({ docs: [...get().docs, doc], selectedId: doc.id });
      },

      duplicate: (id) => {
        const docs = get().docs;
        const i = docs.findIndex((d) => d.id === id);
        if (i < 0) return;
        const src = docs[i];
        const name = (src.object as { metadata?: { name?: unknown } })?.metadata?.name;
        const object = typeof name === 'string' && kindSpecOf(src.object) ? setIn(clone(src.object), ['metadata', 'name'], `${name}-copy`) : clone(src.object);
        // The copy keeps the original's text (comments and all) with the new name written into it.
        const copy = src.error
          ? { ...src, id: newId() }
          : hasGeneratedText(src)
            ? docFromObject(object, src.origin)
            : editDocObject(
                { id: newId(), text: src.text, object: src.object, origin: src.origin, ...(src.listItem ? { listItem: copiedSlot(src.listItem) } : {}) },
                object,
              ).doc;
        change({ docs: [...docs.slice(0, i + 1), copy, ...docs.slice(i + 1)], selectedId: copy.id });
      },

      rename: (id, name) => editObject(id, (o) => setIn(o, ['metadata', 'name'], name)),

      remove: (id) => {
        const docs = get().docs;
        const i = docs.findIndex((d) => d.id === id);
        if (i < 0) return;
        const rest = docs.filter((d) => d.id !== id);
        const selectedId = get().selectedId === id ? (rest[Math.min(i, rest.length - 1)]?.id ?? null) : get().selectedId;
        change({ docs: rest, selectedId });
      },

      setText: (id, text) => mapDoc(id, (d) => (d.text === text ? d : withText(d, text)), `text:${id}`),

      setField: (id, path, value) => editObject(id, (o) => setIn(o, path, value), `field:${id}:${path.join('.')}`, path),
      insertItem: (id, listPath, element, index) => {
        const list = getIn(get().docs.find((d) => d.id === id)?.object, listPath);
        const at = index ?? (Array.isArray(list) ? list.length : 0);
        editObject(id, (o) => insertAt(o, listPath, element, index), undefined, [...listPath, at]);
      },
      removeItem: (id, listPath, index) => editObject(id, (o) => removeAt(o, listPath, index), undefined, listPath),
      moveItem: (id, listPath, from, to) => editObject(id, (o) => moveAt(o, listPath, from, to), undefined, [...listPath, to]),

      importText: (text, origin) => {
        const { docs, messages } = importText(text, origin);
        if (docs.length) change({ docs: [...get().docs, ...docs], selectedId: docs[0].id });
        for (const m of messages) get().notify(m);
        if (!docs.length) get().notify({ level: 'error', text: `${origin}: no Kubernetes objects found.` });
        return docs.map((d) => d.id);
      },

      replaceAll: (docs) => change({ docs, selectedId: docs[0]?.id ?? null }),

      clearAll: () => {
        if (!get().docs.length) return;
        change({ docs: [], selectedId: null });
        get().notify({ level: 'info', text: 'New empty workspace.', action: { label: 'Undo', run: () => get().undo() } });
      },

      keepOnly: (ids) => {
        const keep = new Set(ids);
        const docs = get().docs.filter((d) => keep.has(d.id));
        if (docs.length === get().docs.length) return;
        const selectedId = keep.has(get().selectedId ?? '') ? get().selectedId : (docs[0]?.id ?? null);
        change({ docs, selectedId });
      },

      // problemsRevision: derived problems (validation, CEL, lints) are computed again at the new release
      setKubernetesVersion: (version) =>
        set((s) =>
          s.kubernetesVersion === version && !s.platform ? {} : { kubernetesVersion: version, platform: undefined, problemsRevision: s.problemsRevision + 1 },
        ),
      setPlatform: (platform) => {
        const row = platformOf(platform);
        if (!row) return;
        set((s) => (s.platform === platform ? {} : { kubernetesVersion: row.kubernetesVersion, platform, problemsRevision: s.problemsRevision + 1 }));
      },

      setDocStatic: (id, on) => mapDoc(id, (d) => (!!d.static === on ? d : withStatic(d, on))),
      setStaticManifests: (on) => set((s) => (s.staticManifests === on ? {} : { staticManifests: on, problemsRevision: s.problemsRevision + 1 })),
      setFieldValidation: (mode) => set((s) => (s.fieldValidation === mode ? {} : { fieldValidation: mode, problemsRevision: s.problemsRevision + 1 })),
      setStaticOrder: (order) => set((s) => (s.staticOrder === order ? {} : { staticOrder: order })),
      setFeatureGate: (gate, on) =>
        set((s) => (s.featureGates.includes(gate) === on ? {} : { featureGates: on ? [...s.featureGates, gate] : s.featureGates.filter((g) => g !== gate) })),

      convertToV1: (id) => {
        const doc = get().docs.find((d) => d.id === id);
        if (!doc) return;
        const { object, notes } = convertToV1(doc.object);
        if (object === doc.object) return;
        if (editObject(id, () => object)) get().notify({ level: 'info', text: `Converted to v1. ${notes.join('; ')}.` });
      },

      addDocuments: (objects, origin) => {
        if (!objects.length) return [];
        const added = objects.map((o) => docWithText(o, origin));
        change({ docs: [...get().docs, ...added] });
        return added.map((d) => d.id);
      },

      applyFix: (id, fix, params) => {
        const docs = get().docs;
        const doc = docs.find((d) => d.id === id);
        if (!doc) return;
        const r = fix.apply(doc.object, { params, workspace: docs.map((d) => d.object) });
        const added = (r.newDocuments ?? []).map((o) => withObject(docFromObject(o, 'quick fix'), o));
        if (r.object === doc.object && !added.length) return;
        const edit = r.object === doc.object ? { doc } : editDocObject(doc, r.object);
        if (edit.refused) return refuse(edit.refused);
        change({ docs: [...docs.map((d) => (d === doc ? edit.doc : d)), ...added] });
      },

      undo: () => {
        const r = undo(get().history, snapshot(get()));
        if (r) set({ ...showingChange(get().docs, carried(get().docs, r.state)), history: r.history });
      },
      redo: () => {
        const r = redo(get().history, snapshot(get()));
        if (r) set({ ...showingChange(get().docs, carried(get().docs, r.state)), history: r.history });
      },

      focusField: (docId, path) => set((s) => ({ selectedId: docId, focus: { docId, path, seq: (s.focus?.seq ?? 0) + 1 } })),
      dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
      notify: (notice) => set((s) => ({ notices: [...s.notices, { ...notice, id: ++noticeSeq }] })),
    };
  });
}

export type WorkspaceStore = ReturnType<typeof createWorkspace>;

/** The first-visit workspace. */
export function sampleSnapshot(): Snapshot {
  const docs = sampleWorkspace().map((o) => docWithText(o, 'sample'));
  return { docs, selectedId: docs[0]?.id ?? null };
}

/** Whether a document is a static manifest: marked itself, or the whole workspace is. */
export const isStaticDoc = (doc: WorkspaceDoc, state: Pick<WorkspaceState, 'staticManifests'> = workspace.getState()): boolean =>
  !!doc.static || state.staticManifests;

/** The app's one store. */
export const workspace: WorkspaceStore = appStore(createWorkspace({ docs: [], selectedId: null }));

export function useWorkspace<T>(selector: (s: Workspace) => T): T {
  return useStore(workspace, selector);
}

/** Changes with each refused form edit of the field at `path` in document `docId` (WorkspaceState.refused). */
export const useRefusedAt = (docId: string, path: string): number | undefined =>
  useWorkspace((s) => (s.refused?.docId === docId && s.refused.path === path ? s.refused.seq : undefined));
