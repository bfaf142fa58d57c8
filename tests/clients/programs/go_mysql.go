// Go's database/sql with go-sql-driver/mysql against drydock: parseTime=true DATETIME / DATE into
// time.Time, prepared statements (the driver prepares on the server: binary protocol) with
// int64 / uint64 max / float64 / []byte / NULL parameters, and transactions (Begin / Commit /
// Rollback).
// Prints "<check>.<item>\t<type>\t<value>" lines (tests/clients/polyglot.py) and DONE.
package main

import (
	"database/sql"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

func text(v interface{}) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []byte:
		return fmt.Sprintf("%q", x) // quoted: binary bytes stay readable and exact
	case time.Time:
		return x.Format(time.RFC3339Nano)
	default:
		return fmt.Sprint(x)
	}
}

func emit(check, item string, v interface{}) {
	kind := "null"
	if v != nil {
		kind = fmt.Sprintf("%T", v)
	}
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(text(v))
	fmt.Printf("%s.%s\t%s\t%s\n", check, item, kind, clean)
}

func check(name string, fn func() error) {
	if err := fn(); err != nil {
		clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(err.Error())
		fmt.Printf("%s.error\terror\t%s\n", name, clean)
	}
}

// emitRows prints every column of every row with the driver's own Go types.
func emitRows(name string, rows *sql.Rows) error {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	for i := 0; rows.Next(); i++ {
		vals := make([]interface{}, len(cols))
		ptrs := make([]interface{}, len(cols))
		for j := range vals {
			ptrs[j] = &vals[j]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for j, c := range cols {
			emit(name, fmt.Sprintf("%d.%s", i, c), vals[j])
		}
	}
	return rows.Err()
}

func main() {
	host, port, db := os.Args[1], os.Args[2], os.Args[3]
	base := fmt.Sprintf("root:@tcp(%s:%s)/", host, port)
	opts := "?parseTime=true&loc=UTC&timeout=10s&readTimeout=60s"
	var conn *sql.DB
	check("setup", func() error {
		admin, err := sql.Open("mysql", base+opts)
		if err != nil {
			return err
		}
		defer admin.Close()
		if _, err := admin.Exec("CREATE DATABASE " + db); err != nil {
			return err
		}
		conn, err = sql.Open("mysql", base+db+opts)
		if err != nil {
			return err
		}
		conn.SetMaxOpenConns(1)
		_, err = conn.Exec("CREATE TABLE t (id BIGINT PRIMARY KEY, u BIGINT UNSIGNED, " +
			"f DOUBLE, b BLOB, s VARCHAR(40), d DATE, ts DATETIME)")
		if err == nil {
			emit("setup", "ok", 1)
		}
		return err
	})
	if conn == nil {
		fmt.Println("DONE")
		return
	}
	check("varbinary", func() error {
		_, err := conn.Exec("CREATE TABLE vb (b VARBINARY(20))")
		if err == nil {
			emit("varbinary", "ok", 1)
		}
		return err
	})
	check("prepared", func() error {
		ins, err := conn.Prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)")
		if err != nil {
			return err
		}
		defer ins.Close()
		ts := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
		res, err := ins.Exec(int64(math.MaxInt64), uint64(math.MaxUint64), 0.25,
			[]byte{0x00, 0xff, 'a'}, "it's", ts, ts)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		emit("prepared", "affected", n)
		if _, err := ins.Exec(int64(math.MinInt64), nil, nil, nil, nil, nil, nil); err != nil {
			return err
		}
		sel, err := conn.Prepare("SELECT id, u, f, b, s, d, ts FROM t WHERE id = ? OR id = ? ORDER BY id")
		if err != nil {
			return err
		}
		defer sel.Close()
		rows, err := sel.Query(int64(math.MaxInt64), int64(math.MinInt64))
		if err != nil {
			return err
		}
		return emitRows("prepared", rows)
	})
	check("parse_time", func() error {
		var d, ts time.Time
		err := conn.QueryRow("SELECT d, ts FROM t WHERE s = 'it''s'").Scan(&d, &ts)
		if err == nil {
			emit("parse_time", "d", d)
			emit("parse_time", "ts", ts)
		}
		return err
	})
	check("tx", func() error {
		tx, err := conn.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Exec("INSERT INTO t (id, s) VALUES (?, ?)", 1, "committed"); err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		tx, err = conn.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Exec("INSERT INTO t (id, s) VALUES (?, ?)", 2, "rolled back"); err != nil {
			return err
		}
		var inside int64
		if err := tx.QueryRow("SELECT COUNT(*) FROM t WHERE id IN (1, 2)").Scan(&inside); err != nil {
			return err
		}
		emit("tx", "inside", inside)
		if err := tx.Rollback(); err != nil {
			return err
		}
		rows, err := conn.Query("SELECT id, s FROM t WHERE id IN (1, 2) ORDER BY id")
		if err != nil {
			return err
		}
		return emitRows("tx", rows)
	})
	conn.Close()
	fmt.Println("DONE")
}
