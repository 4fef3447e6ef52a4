/** What every route handler of the app side gets: the fixture and the service's live state. */
import type { SimpleAccount } from '../protocol/index.js';
import type { AnnotationStore } from './annotations.js';
import type { SpeechSynthesizer } from './audio/speech.js';
import type { ConversationStore } from './conversations/store.js';
import type { EndUsers } from './end-users.js';
import type { Fixture } from './fixture.js';
import type { UploadStore } from './files/uploads.js';
import type { QaControls } from './qa/controls.js';
import type { ReplyTasks } from './runs/reply.js';
import type { WorkflowEngine } from './runs/engine.js';

export interface ServiceContext {
  fixture: Fixture;
  engine: WorkflowEngine;
  replies: ReplyTasks;
  conversations: ConversationStore;
  uploads: UploadStore;
  endUsers: EndUsers;
  qa: QaControls;
  speech: SpeechSynthesizer;
  annotations: AnnotationStore;
  /** The workspace owner an app key acts as (Dify's `validate_app_token` logs it in): annotations are its. */
  owner: SimpleAccount;
}
