#!/usr/bin/perl
# Perl DBI with DBD::MariaDB against drydock: column_info (DBD::MariaDB asks SHOW COLUMNS / DESCRIBE
# with a LIKE pattern), primary_key, client-side and server-side ({mariadb_server_prepare => 1})
# prepared execute.
# Prints "<check>.<item>\t<type>\t<value>" lines (tests/clients/polyglot.py) and DONE.
use strict;
use warnings;
use DBI;

my ($host, $port, $db) = @ARGV;
$| = 1;

sub emit {
    my ($check, $item, $v) = @_;
    my $type = !defined $v ? 'null' : ref($v) ? ref($v) : 'scalar';
    my $text = defined $v ? $v : '';
    $text =~ tr/\t\r\n/   /;
    print "$check.$item\t$type\t$text\n";
}

sub check {
    my ($name, $fn) = @_;
    eval { $fn->(); 1 } or do {
        my $err = "$@";
        $err =~ tr/\t\r\n/   /;
        print "$name.error\terror\t$err\n";
    };
}

my $dsn = "DBI:MariaDB:host=$host;port=$port;mariadb_connect_timeout=10";
my $dbh;
check('setup', sub {
    $dbh = DBI->connect($dsn, 'root', '', { RaiseError => 1, PrintError => 0, AutoCommit => 1 });
    $dbh->do("CREATE DATABASE $db");
    $dbh->do("USE $db");
    $dbh->do('CREATE TABLE t (id INT NOT NULL PRIMARY KEY, name VARCHAR(40), amount DECIMAL(10,2), '
        . 'd DATE)');
    emit('setup', 'ok', 1);
});

check('column_info', sub {
    my $sth = $dbh->column_info(undef, $db, 't', '%');
    my $rows = $sth->fetchall_arrayref({});
    for my $row (@$rows) {
        my $n = $row->{COLUMN_NAME};
        emit('column_info', "$n.position", $row->{ORDINAL_POSITION});
        emit('column_info', "$n.type_name", $row->{TYPE_NAME});
        emit('column_info', "$n.nullable", $row->{NULLABLE});
    }
    my $one = $dbh->column_info(undef, $db, 't', 'na%')->fetchall_arrayref({});
    emit('column_info', 'pattern', join(',', map { $_->{COLUMN_NAME} } @$one));
});

check('primary_key', sub {
    emit('primary_key', 'columns', join(',', $dbh->primary_key(undef, $db, 't')));
});

sub prepared {
    my ($check, $attrs) = @_;
    check($check, sub {
        my $base = $check eq 'server_prepare' ? 10 : 0;
        my $ins = $dbh->prepare('INSERT INTO t VALUES (?, ?, ?, ?)', $attrs);
        my $n = 0;
        $n += $ins->execute($base + 1, "it's", '12.34', '2024-05-06');
        $n += $ins->execute($base + 2, undef, undef, undef);
        emit($check, 'inserted', $n);
        my $sel = $dbh->prepare('SELECT id, name, amount, d FROM t WHERE id > ? ORDER BY id', $attrs);
        $sel->execute($base);
        my $i = 0;
        while (my $row = $sel->fetchrow_arrayref) {
            last if $row->[0] > $base + 2;
            emit($check, "$i.$_", $row->[$_]) for 0 .. 3;
            $i++;
        }
        emit($check, 'types', join(',', @{ $sel->{TYPE} }));
        my $plus = $dbh->prepare('SELECT ? + 1', $attrs);
        $plus->bind_param(1, 41, DBI::SQL_INTEGER);
        $plus->execute;
        emit($check, 'plus_one', ($plus->fetchrow_array)[0]);
    });
}

prepared('client_prepare', {});
prepared('server_prepare', { mariadb_server_prepare => 1 });

$dbh->disconnect if $dbh;
print "DONE\n";
