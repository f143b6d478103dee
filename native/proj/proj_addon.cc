// Meridian's binding to PROJ's C API: one function per operation, as thin as the C API allows.
// Every thread that loads the addon gets its own PJ_CONTEXT (PROJ contexts are not thread-safe).
#include <napi.h>
#include <proj.h>
#include <proj_experimental.h>
#include <sqlite3.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

// Per thread. The context is never destroyed: transformers collected after the thread's teardown
// would still point at it, and a context is small.
struct Instance {
  PJ_CONTEXT* ctx = nullptr;
  sqlite3* db = nullptr;
  Napi::FunctionReference transformer;
  ~Instance() {
    if (db) sqlite3_close(db);
  }
};

Instance& instance(Napi::Env env) { return *env.GetInstanceData<Instance>(); }

struct PjDeleter {
  void operator()(PJ* p) const {
    if (p) proj_destroy(p);
  }
};
using PjPtr = std::unique_ptr<PJ, PjDeleter>;

struct ListDeleter {
  void operator()(PJ_OBJ_LIST* l) const {
    if (l) proj_list_destroy(l);
  }
};
using ListPtr = std::unique_ptr<PJ_OBJ_LIST, ListDeleter>;

std::string lastError(PJ_CONTEXT* ctx) {
  int code = proj_context_errno(ctx);
  const char* text = code ? proj_context_errno_string(ctx, code) : nullptr;
  return text ? text : "unknown PROJ error";
}

[[noreturn]] void fail(Napi::Env env, const std::string& message) {
  throw Napi::Error::New(env, message);
}

Napi::Value stringOrNull(Napi::Env env, const char* text) {
  return text ? Napi::String::New(env, text) : env.Null();
}

PjPtr fromDatabase(PJ_CONTEXT* ctx, const std::string& code, PJ_CATEGORY category) {
  return PjPtr(proj_create_from_database(ctx, "EPSG", code.c_str(), category, false, nullptr));
}

PjPtr requireCrs(Napi::Env env, PJ_CONTEXT* ctx, const std::string& code) {
  PjPtr crs = fromDatabase(ctx, code, PJ_CATEGORY_CRS);
  if (!crs) fail(env, "Unknown CRS EPSG:" + code);
  return crs;
}

PjPtr requireOperation(Napi::Env env, PJ_CONTEXT* ctx, const std::string& code) {
  PjPtr op = fromDatabase(ctx, code, PJ_CATEGORY_COORDINATE_OPERATION);
  if (!op) fail(env, "Unknown operation EPSG:" + code);
  return op;
}

const char* typeName(PJ_TYPE type) {
  switch (type) {
    case PJ_TYPE_ELLIPSOID: return "ellipsoid";
    case PJ_TYPE_PRIME_MERIDIAN: return "prime_meridian";
    case PJ_TYPE_GEODETIC_REFERENCE_FRAME: return "geodetic_reference_frame";
    case PJ_TYPE_DYNAMIC_GEODETIC_REFERENCE_FRAME: return "dynamic_geodetic_reference_frame";
    case PJ_TYPE_VERTICAL_REFERENCE_FRAME: return "vertical_reference_frame";
    case PJ_TYPE_DYNAMIC_VERTICAL_REFERENCE_FRAME: return "dynamic_vertical_reference_frame";
    case PJ_TYPE_DATUM_ENSEMBLE: return "datum_ensemble";
    case PJ_TYPE_GEODETIC_CRS: return "geodetic_crs";
    case PJ_TYPE_GEOCENTRIC_CRS: return "geocentric_crs";
    case PJ_TYPE_GEOGRAPHIC_CRS: return "geographic_crs";
    case PJ_TYPE_GEOGRAPHIC_2D_CRS: return "geographic_2d_crs";
    case PJ_TYPE_GEOGRAPHIC_3D_CRS: return "geographic_3d_crs";
    case PJ_TYPE_VERTICAL_CRS: return "vertical_crs";
    case PJ_TYPE_PROJECTED_CRS: return "projected_crs";
    case PJ_TYPE_COMPOUND_CRS: return "compound_crs";
    case PJ_TYPE_TEMPORAL_CRS: return "temporal_crs";
    case PJ_TYPE_ENGINEERING_CRS: return "engineering_crs";
    case PJ_TYPE_BOUND_CRS: return "bound_crs";
    case PJ_TYPE_OTHER_CRS: return "other_crs";
    case PJ_TYPE_CONVERSION: return "conversion";
    case PJ_TYPE_TRANSFORMATION: return "transformation";
    case PJ_TYPE_CONCATENATED_OPERATION: return "concatenated_operation";
    case PJ_TYPE_OTHER_COORDINATE_OPERATION: return "other_coordinate_operation";
    default: return "unknown";
  }
}

// The coordinate system that carries a CRS's first axes: compound CRSs answer for their first part.
PjPtr horizontalCs(PJ_CONTEXT* ctx, const PJ* crs) {
  PjPtr part;
  const PJ* target = crs;
  if (proj_get_type(crs) == PJ_TYPE_COMPOUND_CRS) {
    part.reset(proj_crs_get_sub_crs(ctx, crs, 0));
    if (!part) return PjPtr();
    target = part.get();
  }
  return PjPtr(proj_crs_get_coordinate_system(ctx, target));
}

void setArea(Napi::Env env, Napi::Object out, PJ_CONTEXT* ctx, const PJ* obj) {
  double west, south, east, north;
  const char* name = nullptr;
  if (proj_get_area_of_use(ctx, obj, &west, &south, &east, &north, &name) && west > -1000) {
    Napi::Array bbox = Napi::Array::New(env, 4);
    bbox[0u] = west;
    bbox[1u] = south;
    bbox[2u] = east;
    bbox[3u] = north;
    out.Set("bbox", bbox);
  } else {
    out.Set("bbox", env.Null());
  }
  out.Set("areaName", stringOrNull(env, name));
}

Napi::Value exportsOf(Napi::Env env, PJ_CONTEXT* ctx, const PJ* crs) {
  Napi::Object out = Napi::Object::New(env);
  const char* proj4 = proj_as_proj_string(ctx, crs, PJ_PROJ_4, nullptr);
  const char* wktOptions[] = {"MULTILINE=NO", nullptr};
  const char* wkt = proj_as_wkt(ctx, crs, PJ_WKT1_GDAL, wktOptions);
  out.Set("proj4", stringOrNull(env, proj4));
  out.Set("wkt", stringOrNull(env, wkt));
  return out;
}

std::string idCode(const PJ* obj) {
  const char* auth = proj_get_id_auth_name(obj, 0);
  const char* code = proj_get_id_code(obj, 0);
  if (!auth || !code || std::strcmp(auth, "EPSG") != 0) return "";
  return code;
}

// ---- database --------------------------------------------------------------------------------

Napi::Value Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PJ_CONTEXT* ctx = instance(env).ctx;
  Napi::Object out = Napi::Object::New(env);
  out.Set("projVersion", proj_info().version);
  out.Set("databasePath", stringOrNull(env, proj_context_get_database_path(ctx)));
  out.Set("epsgVersion", stringOrNull(env, proj_context_get_database_metadata(ctx, "EPSG.VERSION")));
  out.Set("epsgDate", stringOrNull(env, proj_context_get_database_metadata(ctx, "EPSG.DATE")));
  return out;
}

// Read-only SQL over proj.db, for the registry index: rows as arrays of string, number or null.
Napi::Value Query(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Instance& self = instance(env);
  if (!self.db) {
    const char* path = proj_context_get_database_path(self.ctx);
    if (!path) fail(env, "PROJ has no database (proj.db not found)");
    if (sqlite3_open_v2(path, &self.db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      std::string message = sqlite3_errmsg(self.db);
      sqlite3_close(self.db);
      self.db = nullptr;
      fail(env, "Cannot open proj.db: " + message);
    }
  }
  std::string sql = info[0].As<Napi::String>();
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(self.db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    fail(env, std::string("proj.db query failed: ") + sqlite3_errmsg(self.db));
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
  if (info.Length() > 1 && info[1].IsArray()) {
    Napi::Array params = info[1].As<Napi::Array>();
    for (uint32_t i = 0; i < params.Length(); i++) {
      Napi::Value value = params[i];
      if (value.IsNumber()) {
        sqlite3_bind_double(raw, i + 1, value.As<Napi::Number>().DoubleValue());
      } else if (value.IsNull() || value.IsUndefined()) {
        sqlite3_bind_null(raw, i + 1);
      } else {
        std::string text = value.ToString();
        sqlite3_bind_text(raw, i + 1, text.c_str(), -1, SQLITE_TRANSIENT);
      }
    }
  }
  Napi::Array rows = Napi::Array::New(env);
  int columns = sqlite3_column_count(raw);
  uint32_t count = 0;
  int step;
  while ((step = sqlite3_step(raw)) == SQLITE_ROW) {
    Napi::Array row = Napi::Array::New(env, columns);
    for (int c = 0; c < columns; c++) {
      switch (sqlite3_column_type(raw, c)) {
        case SQLITE_INTEGER:
        case SQLITE_FLOAT:
          row[c] = sqlite3_column_double(raw, c);
          break;
        case SQLITE_NULL:
          row[c] = env.Null();
          break;
        default:
          row[c] = Napi::String::New(env, reinterpret_cast<const char*>(sqlite3_column_text(raw, c)));
      }
    }
    rows[count++] = row;
  }
  if (step != SQLITE_DONE) fail(env, std::string("proj.db query failed: ") + sqlite3_errmsg(self.db));
  return rows;
}

// ---- objects ---------------------------------------------------------------------------------

Napi::Value Crs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PJ_CONTEXT* ctx = instance(env).ctx;
  std::string code = info[0].ToString();
  PjPtr crs = requireCrs(env, ctx, code);
  Napi::Object out = Napi::Object::New(env);
  out.Set("name", stringOrNull(env, proj_get_name(crs.get())));
  out.Set("type", typeName(proj_get_type(crs.get())));
  out.Set("deprecated", Napi::Boolean::New(env, proj_is_deprecated(crs.get())));
  setArea(env, out, ctx, crs.get());
  Napi::Array axes = Napi::Array::New(env);
  Napi::Value unit = env.Null();
  if (PjPtr cs = horizontalCs(ctx, crs.get())) {
    int n = proj_cs_get_axis_count(ctx, cs.get());
    for (int i = 0; i < n; i++) {
      const char* name = nullptr;
      const char* abbreviation = nullptr;
      const char* direction = nullptr;
      const char* unitName = nullptr;
      double factor = 0;
      if (proj_cs_get_axis_info(ctx, cs.get(), i, &name, &abbreviation, &direction, &factor, &unitName, nullptr, nullptr)) {
        Napi::Object axis = Napi::Object::New(env);
        axis.Set("name", stringOrNull(env, name));
        axis.Set("direction", stringOrNull(env, direction));
        axis.Set("unit", stringOrNull(env, unitName));
        axes[static_cast<uint32_t>(i)] = axis;
        if (i == 0) unit = stringOrNull(env, unitName);
      }
    }
  }
  out.Set("axes", axes);
  out.Set("unit", unit);
  PjPtr geodetic(proj_crs_get_geodetic_crs(ctx, crs.get()));
  std::string geodeticCode = geodetic ? idCode(geodetic.get()) : "";
  out.Set("geodeticCrs", geodeticCode.empty() ? env.Null() : Napi::Number::New(env, std::stod(geodeticCode)));
  out.Set("exports", exportsOf(env, ctx, crs.get()));
  return out;
}


// EPSG codes of the transformations an operation is made of (itself, or the steps of a concatenation).
void collectTransformationCodes(PJ_CONTEXT* ctx, const PJ* op, std::vector<std::string>& out) {
  PJ_TYPE type = proj_get_type(op);
  if (type == PJ_TYPE_CONCATENATED_OPERATION) {
    std::string own = idCode(op);
    if (!own.empty()) {
      out.push_back(own);
      return;
    }
    int steps = proj_concatoperation_get_step_count(ctx, op);
    for (int i = 0; i < steps; i++) {
      PjPtr step(proj_concatoperation_get_step(ctx, op, i));
      if (step) collectTransformationCodes(ctx, step.get(), out);
    }
    return;
  }
  if (type == PJ_TYPE_TRANSFORMATION || type == PJ_TYPE_OTHER_COORDINATE_OPERATION) {
    std::string own = idCode(op);
    if (!own.empty()) out.push_back(own);
  }
}

Napi::Object describeOperation(Napi::Env env, PJ_CONTEXT* ctx, const PJ* op) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("name", stringOrNull(env, proj_get_name(op)));
  out.Set("type", typeName(proj_get_type(op)));
  std::string code = idCode(op);
  out.Set("code", code.empty() ? env.Null() : Napi::Number::New(env, std::stod(code)));
  double accuracy = proj_coordoperation_get_accuracy(ctx, op);
  out.Set("accuracy", accuracy >= 0 ? Napi::Number::New(env, accuracy) : env.Null());
  out.Set("instantiable", Napi::Boolean::New(env, proj_coordoperation_is_instantiable(ctx, op)));
  out.Set("ballpark", Napi::Boolean::New(env, proj_coordoperation_has_ballpark_transformation(ctx, op)));
  std::vector<std::string> codes;
  collectTransformationCodes(ctx, op, codes);
  Napi::Array list = Napi::Array::New(env, codes.size());
  for (size_t i = 0; i < codes.size(); i++) list[static_cast<uint32_t>(i)] = Napi::Number::New(env, std::stod(codes[i]));
  out.Set("transformations", list);
  Napi::Array grids = Napi::Array::New(env);
  int count = proj_coordoperation_get_grid_used_count(ctx, op);
  for (int i = 0; i < count; i++) {
    const char* shortName = nullptr;
    const char* fullName = nullptr;
    const char* packageName = nullptr;
    const char* url = nullptr;
    int directDownload = 0, openLicense = 0, available = 0;
    if (proj_coordoperation_get_grid_used(ctx, op, i, &shortName, &fullName, &packageName, &url, &directDownload,
                                          &openLicense, &available)) {
      Napi::Object grid = Napi::Object::New(env);
      grid.Set("name", stringOrNull(env, shortName));
      grid.Set("path", stringOrNull(env, fullName && *fullName ? fullName : nullptr));
      grid.Set("available", Napi::Boolean::New(env, available));
      grids[static_cast<uint32_t>(i)] = grid;
    }
  }
  out.Set("grids", grids);
  return out;
}

Napi::Value Operation(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PJ_CONTEXT* ctx = instance(env).ctx;
  PjPtr op = requireOperation(env, ctx, info[0].ToString());
  Napi::Object out = describeOperation(env, ctx, op.get());
  out.Set("deprecated", Napi::Boolean::New(env, proj_is_deprecated(op.get())));
  setArea(env, out, ctx, op.get());
  PjPtr source(proj_get_source_crs(ctx, op.get()));
  PjPtr target(proj_get_target_crs(ctx, op.get()));
  std::string sourceCode = source ? idCode(source.get()) : "";
  std::string targetCode = target ? idCode(target.get()) : "";
  out.Set("sourceCrs", sourceCode.empty() ? env.Null() : Napi::Number::New(env, std::stod(sourceCode)));
  out.Set("targetCrs", targetCode.empty() ? env.Null() : Napi::Number::New(env, std::stod(targetCode)));
  PjPtr inverse(proj_coordoperation_create_inverse(ctx, op.get()));
  out.Set("reversible", Napi::Boolean::New(env, static_cast<bool>(inverse)));
  double values[7];
  if (proj_coordoperation_get_towgs84_values(ctx, op.get(), values, 7, false)) {
    Napi::Array towgs84 = Napi::Array::New(env, 7);
    for (uint32_t i = 0; i < 7; i++) towgs84[i] = values[i];
    out.Set("towgs84", towgs84);
  } else {
    out.Set("towgs84", env.Null());
  }
  return out;
}

// The operations PROJ would consider from a CRS to another, best first.
Napi::Value Operations(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PJ_CONTEXT* ctx = instance(env).ctx;
  PjPtr source = requireCrs(env, ctx, info[0].ToString());
  PjPtr target = requireCrs(env, ctx, info[1].ToString());
  PJ_OPERATION_FACTORY_CONTEXT* factory = proj_create_operation_factory_context(ctx, nullptr);
  proj_operation_factory_context_set_spatial_criterion(ctx, factory, PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION);
  proj_operation_factory_context_set_grid_availability_use(ctx, factory,
                                                           PROJ_GRID_AVAILABILITY_KNOWN_AVAILABLE);
  ListPtr list(proj_create_operations(ctx, source.get(), target.get(), factory));
  proj_operation_factory_context_destroy(factory);
  Napi::Array out = Napi::Array::New(env);
  if (!list) return out;
  int count = proj_list_get_count(list.get());
  for (int i = 0; i < count; i++) {
    PjPtr op(proj_list_get(ctx, list.get(), i));
    if (op) out[static_cast<uint32_t>(i)] = describeOperation(env, ctx, op.get());
  }
  return out;
}

// The CRS with a transformation to WGS 84 (or another hub) built in: a BoundCRS.
PjPtr boundWith(Napi::Env env, PJ_CONTEXT* ctx, const PJ* crs, const std::string& operationCode) {
  PjPtr op = requireOperation(env, ctx, operationCode);
  PjPtr hub(proj_get_target_crs(ctx, op.get()));
  if (!hub) fail(env, "Operation EPSG:" + operationCode + " has no target CRS");
  PjPtr bound(proj_crs_create_bound_crs(ctx, crs, hub.get(), op.get()));
  if (!bound) fail(env, lastError(ctx));
  return bound;
}

// A CRS exported with a transformation built in, so the export carries TOWGS84 or its grid.
Napi::Value BoundExports(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PJ_CONTEXT* ctx = instance(env).ctx;
  PjPtr crs = requireCrs(env, ctx, info[0].ToString());
  return exportsOf(env, ctx, boundWith(env, ctx, crs.get(), info[1].ToString()).get());
}

// ---- transformers ----------------------------------------------------------------------------

class Transformer : public Napi::ObjectWrap<Transformer> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Transformer",
                       {InstanceMethod("transform", &Transformer::Transform),
                        InstanceMethod("describe", &Transformer::Describe)});
  }

  Transformer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Transformer>(info) {
    pj_ = info[0].As<Napi::External<PJ>>().Data();
  }

  ~Transformer() override {
    if (pj_) proj_destroy(pj_);
  }

  static Napi::Value Wrap(Napi::Env env, PjPtr pj) {
    PJ* normalized = proj_normalize_for_visualization(instance(env).ctx, pj.get());
    if (!normalized) fail(env, lastError(instance(env).ctx));
    return instance(env).transformer.New({Napi::External<PJ>::New(env, normalized)});
  }

 private:
  // transform(x, y, z): Float64Arrays of equal length, changed in place. Points PROJ cannot
  // transform become NaN; returns how many did.
  Napi::Value Transform(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Float64Array x = info[0].As<Napi::Float64Array>();
    Napi::Float64Array y = info[1].As<Napi::Float64Array>();
    Napi::Float64Array z = info[2].As<Napi::Float64Array>();
    size_t n = x.ElementLength();
    if (y.ElementLength() != n || z.ElementLength() != n) fail(env, "x, y and z must have the same length");
    PJ_CONTEXT* ctx = instance(env).ctx;
    proj_assign_context(pj_, ctx);
    proj_errno_reset(pj_);
    proj_trans_generic(pj_, PJ_FWD, x.Data(), sizeof(double), n, y.Data(), sizeof(double), n, z.Data(),
                       sizeof(double), n, nullptr, 0, 0);
    uint32_t failed = 0;
    for (size_t i = 0; i < n; i++) {
      if (!std::isfinite(x[i]) || !std::isfinite(y[i]) || !std::isfinite(z[i]) || x[i] == HUGE_VAL) {
        x[i] = y[i] = z[i] = NAN;
        failed++;
      }
    }
    return Napi::Number::New(env, failed);
  }

  Napi::Value Describe(const Napi::CallbackInfo& info) {
    return describeOperation(info.Env(), instance(info.Env()).ctx, pj_);
  }

  PJ* pj_ = nullptr;
};

// PROJ's own choice between two CRSs, made per point from the operations' areas of use.
Napi::Value CrsToCrs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PJ_CONTEXT* ctx = instance(env).ctx;
  PjPtr source = requireCrs(env, ctx, info[0].ToString());
  PjPtr target = requireCrs(env, ctx, info[1].ToString());
  PjPtr pj(proj_create_crs_to_crs_from_pj(ctx, source.get(), target.get(), nullptr, nullptr));
  if (!pj) fail(env, lastError(ctx));
  return Transformer::Wrap(env, std::move(pj));
}

// One operation from the registry, forward or inverse.
Napi::Value FromOperation(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PJ_CONTEXT* ctx = instance(env).ctx;
  PjPtr op = requireOperation(env, ctx, info[0].ToString());
  if (info[1].ToBoolean()) {
    PjPtr inverse(proj_coordoperation_create_inverse(ctx, op.get()));
    if (!inverse) fail(env, "Operation EPSG:" + std::string(info[0].ToString()) + " cannot be inverted");
    op = std::move(inverse);
  }
  if (!proj_coordoperation_is_instantiable(ctx, op.get())) {
    fail(env, "Operation EPSG:" + std::string(info[0].ToString()) + " cannot run here (missing grid?)");
  }
  return Transformer::Wrap(env, std::move(op));
}

// Source and target CRSs turned into BoundCRSs first: with the given operation to WGS 84 (a code),
// with PROJ's default (true), or left as they are (false); then PROJ's choice between them.
PjPtr bind(Napi::Env env, PJ_CONTEXT* ctx, PjPtr crs, Napi::Value how) {
  if (how.IsNumber()) return boundWith(env, ctx, crs.get(), how.ToString());
  if (how.ToBoolean()) {
    PjPtr bound(proj_crs_create_bound_crs_to_WGS84(ctx, crs.get(), nullptr));
    if (!bound) fail(env, lastError(ctx));
    return bound;
  }
  return crs;
}

Napi::Value BoundCrsToCrs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PJ_CONTEXT* ctx = instance(env).ctx;
  PjPtr source = bind(env, ctx, requireCrs(env, ctx, info[0].ToString()), info[2]);
  PjPtr target = bind(env, ctx, requireCrs(env, ctx, info[1].ToString()), info[3]);
  PjPtr pj(proj_create_crs_to_crs_from_pj(ctx, source.get(), target.get(), nullptr, nullptr));
  if (!pj) fail(env, lastError(ctx));
  return Transformer::Wrap(env, std::move(pj));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* self = new Instance();
  self->ctx = proj_context_create();
  // PROJ would print its errors on stderr; Meridian reports them itself.
  proj_log_level(self->ctx, PJ_LOG_NONE);
  env.SetInstanceData<Instance>(self);
  Napi::Function transformer = Transformer::Define(env);
  self->transformer = Napi::Persistent(transformer);
  exports.Set("info", Napi::Function::New(env, Info));
  exports.Set("query", Napi::Function::New(env, Query));
  exports.Set("crs", Napi::Function::New(env, Crs));
  exports.Set("operation", Napi::Function::New(env, Operation));
  exports.Set("operations", Napi::Function::New(env, Operations));
  exports.Set("boundExports", Napi::Function::New(env, BoundExports));
  exports.Set("crsToCrs", Napi::Function::New(env, CrsToCrs));
  exports.Set("fromOperation", Napi::Function::New(env, FromOperation));
  exports.Set("boundCrsToCrs", Napi::Function::New(env, BoundCrsToCrs));
  return exports;
}

}  // namespace

NODE_API_MODULE(meridian_proj, Init)
