// The engine factory: one name -> one engine (fio's ioengine= names).
#include "bench/engines/engine.hpp"

#include "core/enum_names.hpp"
#include "core/error.hpp"

namespace piprov::bench {

namespace {
constexpr EnumName<EngineKind> kEngineNames[] = {
    {EngineKind::Psync, "psync"}, {EngineKind::Libaio, "libaio"}, {EngineKind::IoUring, "io_uring"}};
}  // namespace

std::string_view engine_name(EngineKind e) { return enum_name(kEngineNames, e); }

EngineKind parse_engine(std::string_view name) {
  if (name == "sync") return EngineKind::Psync;
  if (auto e = parse_enum(kEngineNames, name)) return *e;
  throw Error(ErrorKind::Usage,
              "unknown --engine '" + std::string(name) + "': use " + enum_choices(kEngineNames, ", ", " or "));
}

std::string engine_choices() { return enum_choices(kEngineNames, " | "); }

std::unique_ptr<Engine> make_engine(EngineKind e) {
  switch (e) {
    case EngineKind::Psync: return make_psync_engine();
    case EngineKind::Libaio: return make_libaio_engine();
    case EngineKind::IoUring: return make_io_uring_engine();
  }
  return make_libaio_engine();
}

}  // namespace piprov::bench
