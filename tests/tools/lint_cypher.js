// Lint Cypher files with Neo4j's own language support (npm @neo4j-cypher/language-support).
// Usage: node lint_cypher.js FILE...   Prints one line per error; exit code 1 if any.
// "Parameter $x is not defined" is not an error here: parameters are passed at run time.
const lint = require('@neo4j-cypher/language-support');
const fs = require('fs');
let errors = 0;
for (const file of process.argv.slice(2)) {
  const result = lint.lintCypherQuery(fs.readFileSync(file, 'utf8'), {});
  const diagnostics = (result.diagnostics || result).filter(
    (d) => d.severity === 1 && !/^Parameter \$\w+ is not defined/.test(d.message),
  );
  for (const d of diagnostics) {
    console.log(`${file}: ${d.message.split('\n')[0]}`);
    errors += 1;
  }
}
process.exit(errors ? 1 : 0);
