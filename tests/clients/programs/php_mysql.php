<?php
// PHP's PDO (server-side prepares: ATTR_EMULATE_PREPARES off) and mysqli against drydock:
// prepared SELECT / INSERT, multi_query (COM_SET_OPTION turns multi-statements on), and
// mysqli->info after a multi-row INSERT and an UPDATE.
// Prints "<check>.<item>\t<type>\t<value>" lines (tests/clients/polyglot.py) and DONE.
[$_, $host, $port, $db] = $argv;
mysqli_report(MYSQLI_REPORT_ERROR | MYSQLI_REPORT_STRICT);

function emit(string $check, string $item, $v): void {
    $type = $v === null ? 'null' : gettype($v);
    $text = $v === null ? '' : (is_bool($v) ? ($v ? 'true' : 'false') : (string)$v);
    echo "$check.$item\t$type\t" . strtr($text, "\t\n\r", '   ') . "\n";
}

function check(string $name, callable $fn): void {
    try {
        $fn();
    } catch (Throwable $e) {
        echo "$name.error\terror\t" . strtr($e->getMessage(), "\t\n\r", '   ') . "\n";
    }
}

$pdo = null;
check('pdo_setup', function () use (&$pdo, $host, $port, $db) {
    $pdo = new PDO("mysql:host=$host;port=$port", 'root', '', [
        PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
        PDO::ATTR_EMULATE_PREPARES => false,
        PDO::ATTR_TIMEOUT => 10,
    ]);
    $pdo->exec("CREATE DATABASE $db");
    $pdo->exec("USE $db");
    $pdo->exec('CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(40), amount DECIMAL(10,2), '
        . 'ratio DOUBLE, d DATE)');
    emit('pdo_setup', 'emulate', $pdo->getAttribute(PDO::ATTR_EMULATE_PREPARES));
});

check('pdo_insert', function () use (&$pdo) {
    $st = $pdo->prepare('INSERT INTO t VALUES (?, ?, ?, ?, ?)');
    $st->execute([1, 'alice', '12.34', 0.5, '2024-05-06']);
    emit('pdo_insert', 'first', $st->rowCount());
    $st->bindValue(1, 2, PDO::PARAM_INT);
    $st->bindValue(2, "it's", PDO::PARAM_STR);
    $st->bindValue(3, null, PDO::PARAM_NULL);
    $st->bindValue(4, null, PDO::PARAM_NULL);
    $st->bindValue(5, null, PDO::PARAM_NULL);
    $st->execute();
    emit('pdo_insert', 'second', $st->rowCount());
});

check('pdo_select', function () use (&$pdo) {
    $st = $pdo->prepare('SELECT id, name, amount, ratio, d FROM t WHERE id >= ? ORDER BY id');
    $st->execute([1]);
    foreach ($st->fetchAll(PDO::FETCH_ASSOC) as $i => $row) {
        foreach ($row as $k => $v) emit('pdo_select', "$i.$k", $v);
    }
});

check('pdo_plus_one_int', function () use (&$pdo) {
    $st = $pdo->prepare('SELECT ? + 1 AS v');
    $st->bindValue(1, 42, PDO::PARAM_INT);
    $st->execute();
    emit('pdo_plus_one_int', 'v', $st->fetchColumn());
});

check('pdo_plus_one_string', function () use (&$pdo) {
    // execute([42]) binds every value as a string (MYSQL_TYPE_VAR_STRING): MySQL converts '42'
    // to a number for +, giving the DOUBLE 43
    $st = $pdo->prepare('SELECT ? + 1 AS v');
    $st->execute([42]);
    emit('pdo_plus_one_string', 'v', $st->fetchColumn());
});

$my = null;
check('mysqli_connect', function () use (&$my, $host, $port, $db) {
    $my = new mysqli($host, 'root', '', $db, (int)$port);
    emit('mysqli_connect', 'db', $my->query('SELECT DATABASE()')->fetch_row()[0]);
});

check('mysqli_prepared', function () use (&$my) {
    $st = $my->prepare('INSERT INTO t (id, name, amount) VALUES (?, ?, ?)');
    $id = 3; $name = 'carol'; $amount = '7.25';
    $st->bind_param('iss', $id, $name, $amount);
    $st->execute();
    emit('mysqli_prepared', 'insert_affected', $st->affected_rows);
    $st = $my->prepare('SELECT id, name, amount FROM t WHERE name = ?');
    $name = 'carol';
    $st->bind_param('s', $name);
    $st->execute();
    $row = $st->get_result()->fetch_assoc();
    foreach ($row as $k => $v) emit('mysqli_prepared', $k, $v);
});

check('mysqli_multi', function () use (&$my) {
    // mysqli connects without CLIENT_MULTI_STATEMENTS; multi_query turns it on with
    // COM_SET_OPTION first
    $my->multi_query('SELECT 1 AS a; SELECT name FROM t WHERE id = 1; UPDATE t SET ratio = 1 WHERE id = 3');
    $n = 0;
    do {
        $res = $my->store_result();
        if ($res) {
            $row = $res->fetch_row();
            emit('mysqli_multi', "r$n", $row[0]);
            $res->free();
        } else {
            emit('mysqli_multi', "r$n.affected", $my->affected_rows);
        }
        $n++;
    } while ($my->more_results() && $my->next_result());
    emit('mysqli_multi', 'results', $n);
});

check('mysqli_multi_off', function () use (&$my) {
    // multi_query turned multi-statements off again (COM_SET_OPTION): two statements in one
    // query are a syntax error now
    try {
        $my->query('SELECT 1; SELECT 2');
        emit('mysqli_multi_off', 'errno', 0);
    } catch (mysqli_sql_exception $e) {
        emit('mysqli_multi_off', 'errno', $e->getCode());
    }
    emit('mysqli_multi_off', 'after', $my->query('SELECT 7')->fetch_row()[0]);
});

check('mysqli_info', function () use (&$my) {
    $my->query("INSERT INTO t (id, name) VALUES (4, 'd'), (5, 'e'), (6, 'f')");
    emit('mysqli_info', 'insert', $my->info);
    emit('mysqli_info', 'insert_affected', $my->affected_rows);
    $my->query("UPDATE t SET name = 'e' WHERE id IN (4, 5)");
    emit('mysqli_info', 'update', $my->info);
    emit('mysqli_info', 'update_affected', $my->affected_rows);
});

echo "DONE\n";
