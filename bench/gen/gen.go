// Package gen writes a deterministic synthetic live_specs dump for
// benchmarks (docs/behaviour.md §11): about a third collections, the rest
// materializations over every connector family and non-scheduling
// images, every schedule shape, about 60% on V2, some with model
// schedules, one to five bindings each, about 630 bytes a row.
package gen

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

var schedulingImages = []string{
	"materialize-snowflake", "materialize-bigquery", "materialize-databricks", "materialize-redshift",
	"materialize-motherduck", "materialize-clickhouse", "materialize-azure-fabric-warehouse", "materialize-iceberg",
}

var fileImages = []string{"materialize-s3-parquet", "materialize-s3-csv", "materialize-gcs-parquet", "materialize-gcs-csv", "materialize-azure-blob-parquet"}

var otherImages = []string{"materialize-postgres", "materialize-mysql", "materialize-elasticsearch", "materialize-kafka"}

var tenants = []string{"acmeCo", "estuary", "globex", "initech", "umbrella", "hooli", "wayne", "stark"}

// Write writes n rows to w, the same bytes for the same n and seed.
func Write(w io.Writer, n int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	bw := bufio.NewWriterSize(w, 1<<20)
	buf := make([]byte, 0, 2048)
	for i := 0; i < n; i++ {
		buf = row(buf[:0], r, i)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func pubID(r *rand.Rand) string { return fmt.Sprintf("%016x", r.Uint64()) }

func q(b []byte, s string) []byte { return strconv.AppendQuote(b, s) }

func row(b []byte, r *rand.Rand, i int) []byte {
	tenant := tenants[r.IntN(len(tenants))]
	name := fmt.Sprintf("%s/team%d/entity%d", tenant, r.IntN(50), i)
	if r.IntN(3) == 0 {
		b = append(b, `{"catalog_name":`...)
		b = q(b, name)
		b = append(b, `,"spec_type":"collection","last_pub_id":`...)
		b = q(b, pubID(r))
		b = append(b, `,"spec":{"schema":{"type":"object","properties":{"id":{"type":"string"},"updated_at":{"type":"string","format":"date-time"},"amount":{"type":"number"},"status":{"type":"string","enum":["new","paid","shipped","refunded"]}},"required":["id"]},"key":["/id"],"projections":{"ID":"/id"}}}`...)
		return b
	}
	var image string
	family := r.IntN(10)
	switch {
	case family < 6:
		image = schedulingImages[r.IntN(len(schedulingImages))]
	case family < 8:
		image = fileImages[r.IntN(len(fileImages))]
	case family < 9:
		image = "materialize-s3-iceberg"
	default:
		image = otherImages[r.IntN(len(otherImages))]
	}
	tag := fmt.Sprintf("v%d", 1+r.IntN(4))
	v2 := r.IntN(10) < 6
	model := v2 && r.IntN(4) == 0
	b = append(b, `{"catalog_name":`...)
	b = q(b, "materialize-"+name)
	b = append(b, `,"spec_type":"materialization","last_pub_id":`...)
	b = q(b, pubID(r))
	b = append(b, `,"connector_image_name":"ghcr.io/estuary/`...)
	b = append(b, image...)
	b = append(b, `","connector_image_tag":":`...)
	b = append(b, tag...)
	b = append(b, `","spec":{`...)
	if v2 {
		b = append(b, `"shards":{"flags":{"enable-runtime-v2":"true"}},`...)
	} else if r.IntN(5) == 0 {
		b = append(b, `"shards":{"maxTxnDuration":"1h"},`...)
	}
	if model {
		switch r.IntN(3) {
		case 0:
			b = append(b, `"syncSchedule":{"baseInterval":"30m"},`...)
		case 1:
			b = append(b, `"syncSchedule":{"baseInterval":"4h","timezone":"America/New_York","windows":[{"interval":"15m","start":"09:00","end":"17:00","days":["Mon","Tue","Wed","Thu","Fri"]}]},`...)
		default:
			b = append(b, `"syncSchedule":{"baseInterval":"1h","timezone":"Europe/Berlin","windows":[{"interval":"5m","start":"22:00","end":"06:00"}]},`...)
		}
	}
	b = append(b, `"endpoint":{"connector":{"image":"ghcr.io/estuary/`...)
	b = append(b, image...)
	b = append(b, ':')
	b = append(b, tag...)
	b = append(b, `","config":{"address":"db-`...)
	b = strconv.AppendInt(b, int64(r.IntN(1000)), 10)
	b = append(b, `.internal:5432","database":"analytics","user":"flow_materialize"`...)
	b = schedule(b, r, image, model)
	b = append(b, `}}},"bindings":[`...)
	nb := 1 + r.IntN(5)
	for k := 0; k < nb; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"resource":{"table":"table_`...)
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, `"},"source":`...)
		b = q(b, fmt.Sprintf("%s/team%d/entity%d", tenant, r.IntN(50), r.IntN(1000)))
		b = append(b, `,"fields":{"recommended":true}}`...)
	}
	b = append(b, "]}}"...)
	return b
}

// schedule appends the connector schedule keys of the config (with a
// leading comma), over every shape.
func schedule(b []byte, r *rand.Rand, image string, model bool) []byte {
	switch {
	case image == "materialize-s3-iceberg":
		return append(b, []string{`,"upload_interval":"PT15M"`, `,"upload_interval":"PT0S"`, `,"upload_interval":"PT1H"`}[r.IntN(3)]...)
	case len(image) > 15 && (image[12:15] == "s3-" || image[12:15] == "gcs" || image[12:15] == "azu") && image != "materialize-azure-fabric-warehouse":
		return append(b, []string{`,"uploadInterval":"5m"`, `,"uploadInterval":"15m"`, `,"uploadInterval":"1h"`, `,"uploadInterval":"0s"`}[r.IntN(4)]...)
	}
	for _, other := range otherImages {
		if image == other {
			return b
		}
	}
	if model && r.IntN(2) == 0 {
		return append(b, `,"syncSchedule":{"syncFrequency":"0s"}`...)
	}
	switch r.IntN(9) {
	case 0:
		return b // the 30m default
	case 1:
		return append(b, `,"syncSchedule":{"syncFrequency":"0s"}`...)
	case 2:
		return append(b, `,"syncSchedule":{"syncFrequency":"1h"}`...)
	case 3:
		return append(b, `,"syncSchedule":{"syncFrequency":"45m"}`...)
	case 4:
		return append(b, `,"syncSchedule":{"syncFrequency":"15m","timezone":"America/Chicago","fastSyncStartTime":"08:00","fastSyncStopTime":"18:00","fastSyncEnabledDays":"M-F"}`...)
	case 5:
		return append(b, `,"syncSchedule":{"syncFrequency":"5m","timezone":"Europe/London","fastSyncStartTime":"22:00","fastSyncStopTime":"06:00"}`...)
	case 6:
		return append(b, `,"advanced":{"updateDelay":"2h"}`...)
	case 7:
		return append(b, `,"syncSchedule":{"syncFrequency":"15m","timezone":"UTC","fastSyncStartTime":"09:00","fastSyncStopTime":"17:00","fastSyncEnabledDays":"Su, T"}`...)
	default:
		return append(b, `,"syncSchedule":{"syncFrequency":"","timezone":null}`...)
	}
}

// OneLineRaw is flowctl raw get output as `jq -c` writes it: the whole
// array of n V2 Snowflake materialization rows (30m) on one line.
func OneLineRaw(n int) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"catalog_name":"acmeCo/t%06d/materialize-snowflake","spec_type":"materialization","last_pub_id":"12:34:ff:4b:56:80:03:a5","connector_image_name":"ghcr.io/estuary/materialize-snowflake","connector_image_tag":":v4","spec":{"shards":{"flags":{"enable-runtime-v2":"true"}},"endpoint":{"connector":{"image":"ghcr.io/estuary/materialize-snowflake:v4","config":{"host":"orgname-account.snowflakecomputing.com","warehouse":"COMPUTE_WH","syncSchedule":{"syncFrequency":"30m"}}}},"bindings":[{"resource":{"table":"t%d"},"source":"acmeCo/c%d"}]}}`, i, i, i)
	}
	b.WriteString("]\n")
	return b.Bytes()
}
