export { FileSessionStore, type FileSessionStoreOptions } from './file-session-store';
