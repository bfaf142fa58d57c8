// Node mysql2 against drydock: server-side prepared statements (execute, binary protocol), text
// queries, result types, UPDATE's changedRows and ON DUPLICATE KEY UPDATE's affectedRows.
// Prints "<check>.<item>\t<type>\t<value>" lines (tests/clients/polyglot.py) and DONE.
'use strict';
const mysql = require('mysql2/promise');

const [host, port, db] = process.argv.slice(2);

function typeName(v) {
  if (v === null || v === undefined) return 'null';
  if (Buffer.isBuffer(v)) return 'Buffer';
  if (v instanceof Date) return 'Date';
  return typeof v;
}

function text(v) {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString();
  if (Buffer.isBuffer(v)) return v.toString('hex');
  return String(v);
}

function emit(check, item, v) {
  console.log(`${check}.${item}\t${typeName(v)}\t${text(v)}`);
}

async function check(name, fn) {
  try {
    await fn();
  } catch (e) {
    console.log(`${name}.error\terror\t${String(e.message).replace(/\s+/g, ' ')}`);
  }
}

async function main() {
  const conn = await mysql.createConnection({
    host, port: Number(port), user: 'root', password: '', timezone: 'Z', connectTimeout: 10000,
  });
  await check('setup', async () => {
    await conn.query(`CREATE DATABASE ${db}`);
    const [used] = await conn.query(`USE ${db}`);
    // the server tracks the schema (CLIENT_SESSION_TRACK): mysql2 reads the state change
    emit('setup', 'schema', used.stateChanges ? used.stateChanges.schema : null);
    await conn.query(
      'CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(40), amount DECIMAL(10,2), ' +
        'd DATE, ts DATETIME, note VARCHAR(20))');
    emit('setup', 'ok', 1);
  });
  await check('execute_insert', async () => {
    const rows = [
      [1, 'alice', '12.34', '2024-05-06', new Date(Date.UTC(2024, 4, 6, 7, 8, 9)), null],
      [2, "it's", '-0.50', new Date(Date.UTC(1999, 11, 31)), '2000-01-01 00:00:00', 'x'],
    ];
    let affected = 0;
    for (const r of rows) {
      const [res] = await conn.execute('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)', r);
      affected += res.affectedRows;
    }
    emit('execute_insert', 'affected', affected);
  });
  await check('execute_select', async () => {
    const [rows] = await conn.execute(
      'SELECT id, name, amount, d, ts, note FROM t WHERE id = ? OR name = ? ORDER BY id',
      [1, "it's"]);
    rows.forEach((row, i) => {
      for (const [k, v] of Object.entries(row)) emit('execute_select', `${i}.${k}`, v);
    });
  });
  await check('select_plus_one', async () => {
    const [rows] = await conn.execute('SELECT ? + 1 AS v', [42]);
    emit('select_plus_one', 'v', rows[0].v);
  });
  await check('column_types', async () => {
    const [, fields] = await conn.execute('SELECT id, name, amount, d, ts FROM t WHERE id = ?', [1]);
    for (const f of fields) emit('column_types', f.name, f.columnType);
  });
  await check('text_query', async () => {
    const [rows] = await conn.query('SELECT id, amount, d FROM t WHERE id = 2');
    for (const [k, v] of Object.entries(rows[0])) emit('text_query', k, v);
  });
  await check('update', async () => {
    const [res] = await conn.query("UPDATE t SET note = 'x' WHERE id IN (1, 2)");
    emit('update', 'affectedRows', res.affectedRows);
    emit('update', 'changedRows', res.changedRows);
    emit('update', 'info', res.info);
  });
  await check('on_duplicate', async () => {
    const sql = 'INSERT INTO t (id, name) VALUES (?, ?) ON DUPLICATE KEY UPDATE name = VALUES(name)';
    const [inserted] = await conn.execute(sql, [3, 'carol']);
    const [updated] = await conn.execute(sql, [3, 'carl']);
    const [same] = await conn.execute(sql, [3, 'carl']);
    emit('on_duplicate', 'inserted', inserted.affectedRows);
    emit('on_duplicate', 'updated', updated.affectedRows);
    emit('on_duplicate', 'unchanged', same.affectedRows);
    const [rows] = await conn.execute('SELECT name FROM t WHERE id = ?', [3]);
    emit('on_duplicate', 'name', rows[0].name);
  });
  await conn.end();
  console.log('DONE');
}

main().catch((e) => {
  console.log(`connect.error\terror\t${String(e.message).replace(/\s+/g, ' ')}`);
  console.log('DONE');
});
