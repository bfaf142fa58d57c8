"""Secret-bearing statements in many spellings, each with the secrets it carries.

Every secret is a unique string, so a test can look for it anywhere (audit files, server log,
SHOW AUDIT). Statements need not succeed on the server: redaction must hold for failures too.
"""

from __future__ import annotations

CORPUS: list[tuple[str, tuple[str, ...]]] = [
    # CREATE / ALTER USER ... IDENTIFIED BY
    ("CREATE USER 'rc1'@'%' IDENTIFIED BY 'Sx-plain-01'", ("Sx-plain-01",)),
    ("CREATE USER rc2 IDENTIFIED /* c */ BY /**/ 'Sx-comment-02'", ("Sx-comment-02",)),
    ("create user rc3 identified\n\tby\r\n'Sx-newline-03'", ("Sx-newline-03",)),
    ("CREATE USER rc4 IDENTIFIED BY 'Sx-it\\'s-04'", ("Sx-it", "s-04")),
    ("CREATE USER rc5 IDENTIFIED BY 'Sx-doubled''quote-05'", ("Sx-doubled", "quote-05")),
    ('CREATE USER rc6 IDENTIFIED BY "Sx-dq-06"', ("Sx-dq-06",)),
    ("CREATE USER rc7 IDENTIFIED WITH mysql_native_password BY 'Sx-plugin-07'", ("Sx-plugin-07",)),
    ("CREATE USER rc8 IDENTIFIED WITH 'caching_sha2_password' AS 'Sx-hash-08'", ("Sx-hash-08",)),
    (
        "ALTER USER rc1 IDENTIFIED BY 'Sx-alter-09' REPLACE 'Sx-current-09'",
        ("Sx-alter-09", "Sx-current-09"),
    ),
    ("ALTER USER rc1 IDENTIFIED BY 'Sx-split' 'adjacent-10'", ("Sx-split", "adjacent-10")),
    ("CREATE USER rc11 IDENTIFIED BY _utf8mb4'Sx-introducer-11'", ("Sx-introducer-11",)),
    ("CREATE USER rc12 IDENTIFIED BY 998877665512", ("998877665512",)),
    (
        "CREATE USER rc13 IDENTIFIED -- line comment\n BY # another\n 'Sx-linecomments-13'",
        ("Sx-linecomments-13",),
    ),
    ("/*!80000 CREATE USER rc14 IDENTIFIED BY 'Sx-exec-comment-14' */", ("Sx-exec-comment-14",)),
    ("CREATE USER rc15@'%' IDENTIFIED BY PASSWORD '*Sx-oldsyntax-15'", ("Sx-oldsyntax-15",)),
    (
        "CREATE USER a16 IDENTIFIED BY 'Sx-multi-16a', b16 IDENTIFIED BY 'Sx-multi-16b'",
        ("Sx-multi-16a", "Sx-multi-16b"),
    ),
    # GRANT ... IDENTIFIED BY (MySQL 5.7 spelling)
    ("GRANT SELECT ON *.* TO rc17 IDENTIFIED BY 'Sx-grant-17'", ("Sx-grant-17",)),
    # SET PASSWORD
    ("SET PASSWORD = 'Sx-setpw-18'", ("Sx-setpw-18",)),
    ("SET PASSWORD FOR 'rc1'@'%' = /*x*/ 'Sx-setpw-for-19'", ("Sx-setpw-for-19",)),
    ("set   password\tfor rc1 =\n PASSWORD('Sx-pwfunc-20')", ("Sx-pwfunc-20",)),
    ('SET PASSWORD FOR rc1 = PASSWORD ( /* c */ "Sx-pwfunc-21" )', ("Sx-pwfunc-21",)),
    (
        "SET PASSWORD FOR rc1 = 'Sx-new-22' REPLACE 'Sx-old-22' RETAIN CURRENT PASSWORD",
        ("Sx-new-22", "Sx-old-22"),
    ),
    ("SeT PaSsWoRd FoR rc1 = 'Sx-case-23'", ("Sx-case-23",)),
    ("SET PASSWORD FOR rc1 = 'Sx-unterminated-24", ("Sx-unterminated-24",)),
    ("SET PASSWORD FOR rc1 = 'Sx-backslash-end-25\\", ("Sx-backslash-end-25",)),
    # catalog properties
    (
        "CREATE CATALOG rc26 PROPERTIES ('type' = 'iceberg', 's3.secret_key' = 'Sx-prop-26')",
        ("Sx-prop-26",),
    ),
    (
        "CREATE CATALOG rc27 PROPERTIES ('type'='iceberg', 's3.secret_key' /*c*/ = 'Sx-prop-27')",
        ("Sx-prop-27",),
    ),
    (
        'CREATE CATALOG rc28 PROPERTIES ("type" = "iceberg", "s3.secret_key" = 77665544332211)',
        ("77665544332211",),
    ),
    ("CREATE CATALOG rc29 PROPERTIES (`s3.access_key` = 'Sx-backtick-29')", ("Sx-backtick-29",)),
    (
        "ALTER CATALOG rc26 SET PROPERTIES ('S3.SECRET_KEY'\n=\n'Sx-alter-prop-30')",
        ("Sx-alter-prop-30",),
    ),
    (
        "ALTER CATALOG rc26 SET PROPERTIES ('s3.secret_key' = 'Sx-esc\\'aped-31')",
        ("Sx-esc", "aped-31"),
    ),
    ("ALTER CATALOG rc26 SET PROPERTIES ('rest.token' = -4433221100)", ("4433221100",)),
    ("ALTER CATALOG rc26 SET PROPERTIES ('gcs.private-key' = 'Sx-privkey-33')", ("Sx-privkey-33",)),
    (
        "ALTER CATALOG rc26 SET PROPERTIES ('s3.secret\\_key' = 'Sx-escaped-key-34')",
        ("Sx-escaped-key-34",),
    ),
    (
        "ALTER CATALOG rc26 SET PROPERTIES ('oss.credential' = 'Sx-cred-35', 'uri' = 'http://x')",
        ("Sx-cred-35",),
    ),
    (
        "CREATE CATALOG rc36 PROPERTIES ('s3.secret_key' = 'Sx-unterminated-prop-36)",
        ("Sx-unterminated-prop-36",),
    ),
    # procedure arguments
    ("CALL rc26.sys.set_credentials(table => 'db.t', secret_key => 'Sx-call-37')", ("Sx-call-37",)),
    ('CALL rc26.sys.p(`token` /* c */ => "Sx-call-38")', ("Sx-call-38",)),
    ("CALL rc26.sys.p(PASSWORD=>5566778899)", ("5566778899",)),
    ("CALL rc26.sys.p(access_key => CONCAT('Sx-call', '-40'))", ("Sx-call", "-40")),
    # passed on to the SQL engine (sqlglot falls back to a Command for these)
    (
        "CREATE SERVER rc41 FOREIGN DATA WRAPPER mysql OPTIONS (USER 'u', PASSWORD 'Sx-server-41')",
        ("Sx-server-41",),
    ),
    ("CREATE SECRET rc42 (TYPE s3, KEY_ID 'k', SECRET 'Sx-duckdb-42')", ("Sx-duckdb-42",)),
    # credentials inside a URL-valued property, whatever its key (engine/support/url_secrets.py)
    (
        "CREATE CATALOG rc43 PROPERTIES ('type' = 'lance', 'warehouse' = '/tmp/rc43', "
        "'s3.endpoint' = 'http://AKrc43:Sx-url-43@127.0.0.1:9')",
        ("Sx-url-43", "AKrc43"),
    ),
    (
        'ALTER CATALOG rc26 SET PROPERTIES ("warehouse" = "s3://AKrc44:Sx-url/44+x@bucket/wh")',
        ("Sx-url/44", "AKrc44"),
    ),
    (
        "CREATE CATALOG rc45 PROPERTIES ('uri' = "
        "'https://h/o?X-Amz-Credential=AKrc45%2F1&X-Amz-Signature=Sx-sig-45')",
        ("AKrc45", "Sx-sig-45"),
    ),
    (
        "ADMIN SET FRONTEND CONFIG ('lance_index_ray_address' = 'ray://u:Sx-ray-46@head:10001')",
        ("Sx-ray-46",),
    ),
    (
        "CREATE CATALOG rc47 PROPERTIES ('s3.endpoint' = 'http://u:Sx-adj' '47x@h')",
        ("Sx-adj", "47x"),
    ),
    ("CREATE CATALOG rc48 PROPERTIES ('s3.endpoint' = 'http://u:Sx-q''48q@h')", ("Sx-q", "48q")),
    (
        "CREATE CATALOG rc49 PROPERTIES ('store' = "
        "'postgresql://u@db/m?sslmode=require&password=Sx-pg-49')",
        ("Sx-pg-49",),
    ),
]

SECRETS: list[str] = [s for _, secrets in CORPUS for s in secrets]
