-- The parts of Flow's control-plane schema that schedtool reads, shaped
-- as Flow's supabase migrations shape them (estuary/flow,
-- supabase/migrations: 00_polyfill.sql, 02_live_specs / compacted
-- migrations): the flowid domain over macaddr8, the catalog_name domain,
-- the spec-type enum, live_specs with spec as json (not jsonb), the
-- unique text_pattern_ops index on catalog_name, and row-level security
-- with a read policy through auth_catalog().

CREATE DOMAIN flowid AS macaddr8;

CREATE DOMAIN catalog_name AS text
  CONSTRAINT "Must be NFKC letters, numbers, -, _, ., separated by / and not end in /"
  CHECK (VALUE ~ '^([[:alpha:][:digit:]\-_.]+/)+[[:alpha:][:digit:]\-_.]+$' AND VALUE IS NFKC NORMALIZED);

CREATE TYPE catalog_spec_type AS ENUM ('capture', 'collection', 'materialization', 'test');

-- Flow's role_grants / user_grants, cut down: which role may read which
-- catalog prefix.
CREATE TABLE read_grants (
  role_name name NOT NULL,
  catalog_prefix text NOT NULL
);

CREATE FUNCTION auth_catalog(name_or_prefix text, min_capability text) RETURNS boolean
  LANGUAGE sql STABLE AS $$
    SELECT EXISTS (
      SELECT 1 FROM read_grants g
      WHERE g.role_name = current_user AND starts_with(name_or_prefix, g.catalog_prefix)
    )
  $$;

CREATE TABLE live_specs (
  id                    flowid PRIMARY KEY,
  created_at            timestamptz NOT NULL DEFAULT now(),
  detail                text,
  updated_at            timestamptz NOT NULL DEFAULT now(),
  catalog_name          catalog_name NOT NULL,
  connector_image_name  text,
  connector_image_tag   text,
  last_build_id         flowid NOT NULL,
  last_pub_id           flowid NOT NULL,
  reads_from            text[],
  spec                  json,
  spec_type             catalog_spec_type,
  writes_to             text[],
  built_spec            json,
  md5                   text GENERATED ALWAYS AS (md5(trim(spec::text))) STORED,
  CONSTRAINT "spec and spec_type must be consistent" CHECK (
    json_typeof(spec) IS DISTINCT FROM 'null' AND (spec IS NULL) = (spec_type IS NULL)
  )
);

CREATE UNIQUE INDEX idx_live_specs_catalog_name ON live_specs (catalog_name text_pattern_ops);

ALTER TABLE live_specs ENABLE ROW LEVEL SECURITY;

CREATE POLICY "Users must be read-authorized to the specification catalog name"
  ON live_specs AS PERMISSIVE FOR SELECT
  USING (auth_catalog(catalog_name, 'read'));
