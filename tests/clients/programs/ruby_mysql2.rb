# Ruby's mysql2 gem against drydock: cast_booleans over a TINYINT(1) column (the gem casts only
# columns reported as TINYINT with display width 1), a prepared statement (binary protocol) and
# the Ruby classes of result values.
# Prints "<check>.<item>\t<type>\t<value>" lines (tests/clients/polyglot.py) and DONE.
require 'mysql2'
require 'bigdecimal'
require 'date'

host, port, db = ARGV
$stdout.sync = true

def emit(check, item, v)
  type = v.nil? ? 'null' : v.class.name
  text = v.nil? ? '' : (v.is_a?(BigDecimal) ? v.to_s('F') : v.to_s)
  puts "#{check}.#{item}\t#{type}\t#{text.tr("\t\r\n", '   ')}"
end

def check(name)
  yield
rescue StandardError => e
  puts "#{name}.error\terror\t#{e.class}: #{e.message.tr("\t\r\n", '   ')}"
end

client = nil
check('setup') do
  client = Mysql2::Client.new(host: host, port: port.to_i, username: 'root', password: '',
                              connect_timeout: 10, read_timeout: 60)
  client.query("CREATE DATABASE #{db}")
  client.query("USE #{db}")
  client.query('CREATE TABLE t (id INT PRIMARY KEY, flag TINYINT(1), name VARCHAR(40), ' \
               'amount DECIMAL(10,2), ratio DOUBLE, d DATE, ts DATETIME)')
  client.query("INSERT INTO t VALUES (1, 1, 'alice', 12.34, 0.5, '2024-05-06', " \
               "'2024-05-06 07:08:09'), (2, 0, NULL, NULL, NULL, NULL, NULL)")
  emit('setup', 'affected', client.affected_rows)
end

check('cast_booleans') do
  client.query('SELECT id, flag FROM t ORDER BY id', cast_booleans: true).each do |row|
    emit('cast_booleans', row['id'].to_s, row['flag'])
  end
end

check('types') do
  row = client.query('SELECT id, flag, name, amount, ratio, d, ts FROM t WHERE id = 1').first
  row.each { |k, v| emit('types', k, v) }
end

check('prepared') do
  stmt = client.prepare('SELECT id, name, amount, d, ts FROM t WHERE id = ? OR name = ? ORDER BY id')
  stmt.execute(2, 'alice').each_with_index do |row, i|
    row.each { |k, v| emit('prepared', "#{i}.#{k}", v) }
  end
  ins = client.prepare('INSERT INTO t (id, name, amount) VALUES (?, ?, ?)')
  ins.execute(3, "it's", BigDecimal('-0.5'))
  emit('prepared', 'insert_affected', ins.affected_rows)
  emit('prepared', 'inserted', client.query('SELECT name FROM t WHERE id = 3').first['name'])
  plus = client.prepare('SELECT ? + 1 AS v')
  emit('prepared', 'plus_one', plus.execute(42).first['v'])
end

client&.close
puts 'DONE'
