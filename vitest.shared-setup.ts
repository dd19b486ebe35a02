// The "shared" project's files share a module graph (vitest.config.ts): each starts from the
// app's stores as a fresh page has them, whatever the file before it left.
import { beforeAll } from 'vitest';
import { resetAppStores } from './src/store/app-stores';

beforeAll(() => resetAppStores());
