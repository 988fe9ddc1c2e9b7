// drizzle-kit reads this to generate SQL migrations from the schema into drizzle/.
// Migrations are applied by kurz itself at start-up (src/store/sqlite/migrate.ts).
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/store/sqlite/schema.ts',
  out: './drizzle',
});
