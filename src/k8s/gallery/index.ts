/**
 * A gallery of real policies: the examples of the Kubernetes documentation's
 * ValidatingAdmissionPolicy and MutatingAdmissionPolicy pages, each as documents (policy,
 * bindings, params) with saved cases that pass. Every entry names its page and what differs
 * from the page's text. src/store/gallery.ts opens one into the workspace.
 */
import { sidecarApplyConfiguration, sidecarJsonPatch } from './mutating';
import type { GalleryEntry } from './types';
import { imageMatchesEnvironment, replicaLimit, replicaLimitParams } from './validating';

export type { GalleryCase, GalleryEntry, GalleryRequest } from './types';

export const GALLERY: readonly GalleryEntry[] = [replicaLimit, replicaLimitParams, imageMatchesEnvironment, sidecarApplyConfiguration, sidecarJsonPatch];
