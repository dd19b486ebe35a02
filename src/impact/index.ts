/**
 * Impact: replay a cluster's real traffic (an audit log) and its running objects (a snapshot)
 * through the workspace's admission configuration, beside the cluster's own chain. Pure
 * TypeScript, Node and browser. See README.md.
 */
export { analyzeImpact, existingKey } from './analyze';
export { clusterObjects, simulatorDraftOf, type Assumed } from './scenario';
export type { ExistingImpact, ImpactInput, ImpactOptions, ImpactProgress, ImpactReport } from './analyze';
export { baselineNote, headlineOf, verdictOf, type ImpactSummary } from './summary';
export { candidateChain, chainTracker, type ChainTracker, type SnapshotEvidence } from './chains';
export { refusedAt, type Refused } from './inputs';
export { readsOldObject } from './unknown';
export {
  chainDecider,
  changeOf,
  fullDecider,
  CHANGES,
  type ChainSpec,
  type Decider,
  type DecisionPair,
  type Change,
  type Decision,
  type Denial,
} from './decide';
export type { EventImpact, KeptRequest, LineOutcome, LogLine, SkippedLine } from './events';
export { isLocalShard, localShard, routeOf, shardServer, type OpenShard, type Route, type ShardAnswer, type ShardBatch, type ShardSetup } from './shard';
export { readAuditLine, SKIP_REASONS, type AuditLine, type AuditWrite, type SkipReason } from './audit';
export { readCluster, isAdmissionObject, ADMISSION_KINDS, type Cluster, type OldObjectSource } from './cluster';
export { joinedSources, readLineBatches, readLines, textChunks, type Line, type TextSource } from './lines';
export { readSnapshot, MAX_ITEM_CHARS, SNAPSHOT_COMMAND, type SnapshotItem } from './snapshot';
export { laterReads, retains, verbAndRef, type LaterReads } from './retain';
export { applyPatchBody, mergePatch, strategicMerge, type PatchKind } from './patch';
export { replayRequest, type ReplayedRequest } from './replay';
export {
  addToGroups,
  byDecider,
  firstOfEachDecider,
  pickRows,
  spreadOf,
  groupEvents,
  denialTimeline,
  deciderOf,
  durationText,
  reasonOf,
  sortedRows,
  timelineAxis,
  TIMELINE_BUCKETS,
  type DeciderRow,
  type EventGroups,
  type ImpactRow,
} from './group';
export { assumedLines, eventJson, eventsBrackets, reportJson, reportJsonFrame, reportCsv, reportMarkdown } from './export';
export {
  decisionPool,
  decisionServer,
  IN_FLIGHT_PER_ENGINE,
  POOL_DEPTH,
  type DecisionPool,
  type OpenMember,
  type PoolAnswer,
  type PoolAsk,
  type PoolMember,
  type ToMember,
} from './pool';
export { replayConversion, ruleKey, sourceDenial, type RuleKey, type RuleTraffic, type TrafficDifference, type TrafficProof } from './conversion';
