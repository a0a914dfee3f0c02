// Machine profiles in the store, on real SQLite files in temporary directories: a profile with
// ceilings, latency and bandwidth points, levels and warnings reads back exactly as it was stored
// (by id, as the newest of its machine, and in the list); the newest profile is chosen per
// fingerprint; an unknown id is a usage error; a profile is stored whole or not at all; the
// noisy mark with its reasons and each level's size agreement and note read back too.
#include "store/profile_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "raw_sqlite.h"
#include "temp_files.h"

namespace rprof {
namespace {

using testing_support::RawInt;
using testing_support::TempDir;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

MachineRecord TestMachine(const std::string& fingerprint = "fp-0001") {
  return {fingerprint, "Test CPU @ 3.0GHz", 8, "L1d 32K, L2 1M, L3 32M", "6.1.0-test", "testhost"};
}

Ceiling MakeCeiling(const std::string& kind, const std::string& name, const std::string& level,
                    const std::string& isa, const std::string& precision,
                    const std::string& pattern, int threads, uint64_t working_set, double value,
                    double spread, int reps) {
  Ceiling c;
  c.kind = kind;
  c.name = name;
  c.level = level;
  c.isa = isa;
  c.precision = precision;
  c.pattern = pattern;
  c.threads = threads;
  c.working_set_bytes = working_set;
  c.value = value;
  c.unit = kind == "compute" ? "GFLOP/s" : "GB/s";
  c.spread_pct = spread;
  c.repetitions = reps;
  return c;
}

// A profile with every part set; values with many significant digits, so a lossy column would
// show. Points are in the order LoadProfile returns them (latency by working set; bandwidth by
// pattern, threads, working set; ceilings and levels as inserted).
MachineProfile FullProfile(double scale = 1.0) {
  MachineProfile p;
  p.topology.isa.sse2 = true;
  p.topology.isa.avx = true;
  p.topology.isa.avx2 = true;
  p.topology.isa.fma = true;
  p.topology.nominal_ghz = 2.6;
  p.clock_ghz_scalar = 3.8123456789;
  p.clock_ghz_vector = 3.45;
  p.threads = 2;
  p.mode = "full";
  p.load_average_before = 0.25;
  p.seconds = 61.5;
  p.ceilings = {
      MakeCeiling("compute", "fp64_avx2_fma", "", "avx2", "fp64", "fma", 1, 0, 55.5 * scale, 1.25,
                  10),
      MakeCeiling("compute", "fp64_scalar_add", "", "scalar", "fp64", "add", 1, 0, 3.8 / 3 * scale,
                  0.5, 10),
      MakeCeiling("compute", "fp32_avx2_fma", "", "avx2", "fp32", "fma", 2, 0, 222.0 * scale, 2.0,
                  8),
      MakeCeiling("bandwidth", "l1_load", "l1", "avx2", "fp64", "load", 1, 16384,
                  207.27860036853124 * scale, 4.0, 7),
      MakeCeiling("bandwidth", "dram_triad", "dram", "avx2", "fp64", "triad", 1, 94906368,
                  25.8 * scale, 17.5, 5),
      MakeCeiling("bandwidth", "dram_copy_nt", "dram", "avx2", "fp64", "copy_nt", 2,
                  uint64_t{1} << 33, 58.1 * scale, 15.0, 5),  // > 32 bits of working set
  };
  // Both conventions, as `machine measure` sets them: bytes per element compulsory and actual.
  p.ceilings[3].bytes_per_element = 8, p.ceilings[3].traffic_bytes_per_element = 8;
  p.ceilings[4].bytes_per_element = 24, p.ceilings[4].traffic_bytes_per_element = 32;
  p.ceilings[5].bytes_per_element = 16, p.ceilings[5].traffic_bytes_per_element = 16;
  p.latency = {{16384, 1.43 * scale, 4.4}, {262144, 3.76, 2.0}, {67108864, 125.74, 9.5}};
  p.bandwidth = {{"load", 1, 16384, 207.3, 4.0},
                 {"load", 1, 67108864, 20.7, 3.5},
                 {"load", 2, 32768, 328.5, 6.6},
                 {"triad", 1, 16384, 203.1, 8.2}};
  p.levels = {{"l1", 32768, 32768, 1.43, 207.3, 0, ""},
              {"l2", 524288, 262144, 3.76, 103.2, 0, ""},
              {"l3", 33554432, 0, 0, 71.1, 0, ""},  // latency did not find L3: stored as NULL
              {"dram", 0, 0, 125.74, 20.7, 0, ""}};
  p.warnings = {"load average 1.92 before measuring: other processes were running",
                "sysfs reports L3 of 32 MiB, but the measured plateau ends at 4 MiB"};
  return p;
}

void ExpectSameCeilings(const std::vector<Ceiling>& got, const std::vector<Ceiling>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i].name + " x" + std::to_string(want[i].threads));
    EXPECT_EQ(got[i].kind, want[i].kind);
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(got[i].level, want[i].level);
    EXPECT_EQ(got[i].isa, want[i].isa);
    EXPECT_EQ(got[i].precision, want[i].precision);
    EXPECT_EQ(got[i].pattern, want[i].pattern);
    EXPECT_EQ(got[i].threads, want[i].threads);
    EXPECT_EQ(got[i].working_set_bytes, want[i].working_set_bytes);
    EXPECT_EQ(got[i].value, want[i].value);  // REAL keeps every bit of a double
    EXPECT_EQ(got[i].unit, want[i].unit);
    EXPECT_EQ(got[i].spread_pct, want[i].spread_pct);
    EXPECT_EQ(got[i].repetitions, want[i].repetitions);
    EXPECT_EQ(got[i].bytes_per_element, want[i].bytes_per_element);
    EXPECT_EQ(got[i].traffic_bytes_per_element, want[i].traffic_bytes_per_element);
  }
}

void ExpectSamePoints(const MachineProfile& got, const MachineProfile& want) {
  ASSERT_EQ(got.latency.size(), want.latency.size());
  for (size_t i = 0; i < want.latency.size(); ++i) {
    SCOPED_TRACE("latency point " + std::to_string(i));
    EXPECT_EQ(got.latency[i].working_set_bytes, want.latency[i].working_set_bytes);
    EXPECT_EQ(got.latency[i].ns, want.latency[i].ns);
    EXPECT_EQ(got.latency[i].spread_pct, want.latency[i].spread_pct);
  }
  ASSERT_EQ(got.bandwidth.size(), want.bandwidth.size());
  for (size_t i = 0; i < want.bandwidth.size(); ++i) {
    SCOPED_TRACE("bandwidth point " + std::to_string(i));
    EXPECT_EQ(got.bandwidth[i].pattern, want.bandwidth[i].pattern);
    EXPECT_EQ(got.bandwidth[i].threads, want.bandwidth[i].threads);
    EXPECT_EQ(got.bandwidth[i].working_set_bytes, want.bandwidth[i].working_set_bytes);
    EXPECT_EQ(got.bandwidth[i].gbs, want.bandwidth[i].gbs);
    EXPECT_EQ(got.bandwidth[i].spread_pct, want.bandwidth[i].spread_pct);
  }
  ASSERT_EQ(got.levels.size(), want.levels.size());
  for (size_t i = 0; i < want.levels.size(); ++i) {
    SCOPED_TRACE(want.levels[i].level);
    EXPECT_EQ(got.levels[i].level, want.levels[i].level);
    EXPECT_EQ(got.levels[i].reported_size, want.levels[i].reported_size);
    EXPECT_EQ(got.levels[i].effective_size, want.levels[i].effective_size);
    EXPECT_EQ(got.levels[i].latency_ns, want.levels[i].latency_ns);
    EXPECT_EQ(got.levels[i].bandwidth_gbs, want.levels[i].bandwidth_gbs);
  }
}

void ExpectSameHeader(const StoredProfile& got, const MachineRecord& machine,
                      const MachineProfile& want) {
  EXPECT_EQ(got.machine.fingerprint, machine.fingerprint);
  EXPECT_EQ(got.machine.cpu_model, machine.cpu_model);
  EXPECT_EQ(got.machine.cores, machine.cores);
  EXPECT_EQ(got.machine.caches, machine.caches);
  EXPECT_EQ(got.machine.kernel, machine.kernel);
  EXPECT_EQ(got.machine.hostname, machine.hostname);
  EXPECT_EQ(got.profile.fingerprint, machine.fingerprint);
  EXPECT_EQ(got.isa, "sse2 avx avx2 fma");
  EXPECT_EQ(got.nominal_ghz, 2.6);
  EXPECT_EQ(got.profile.mode, want.mode);
  EXPECT_EQ(got.profile.threads, want.threads);
  EXPECT_EQ(got.profile.clock_ghz_scalar, want.clock_ghz_scalar);
  EXPECT_EQ(got.profile.clock_ghz_vector, want.clock_ghz_vector);
  EXPECT_EQ(got.profile.load_average_before, want.load_average_before);
  EXPECT_EQ(got.profile.seconds, want.seconds);
  EXPECT_EQ(got.profile.warnings, want.warnings);
  EXPECT_FALSE(got.created_at.empty());
}

class ProfileStoreTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    path_ = dir_.File("runs.db");
    Error err;
    ASSERT_TRUE(store_.Open({path_, false}, &err)) << err.message;
  }
  int64_t Insert(const MachineRecord& machine, const MachineProfile& profile) {
    int64_t id = 0;
    Error err;
    EXPECT_TRUE(InsertProfile(&store_, machine, profile, &id, &err)) << err.message;
    return id;
  }

  TempDir dir_;
  std::string path_;
  RunStore store_;
};

TEST_F(ProfileStoreTest, InsertThenLoadRoundTripsEverything) {
  MachineRecord machine = TestMachine();
  MachineProfile want = FullProfile();
  int64_t id = Insert(machine, want);
  ASSERT_GT(id, 0);

  StoredProfile got;
  Error err;
  ASSERT_TRUE(LoadProfile(&store_, id, &got, &err)) << err.message;
  EXPECT_EQ(got.id, id);
  ExpectSameHeader(got, machine, want);
  ExpectSameCeilings(got.profile.ceilings, want.ceilings);
  ExpectSamePoints(got.profile, want);
  EXPECT_EQ(got.created_at.size(), 24u) << got.created_at;  // 2026-11-29T23:40:00.123Z

  StoredProfile newest;
  bool found = false;
  ASSERT_TRUE(LoadNewestProfile(&store_, machine.fingerprint, &newest, &found, &err))
      << err.message;
  ASSERT_TRUE(found);
  EXPECT_EQ(newest.id, id);
  EXPECT_EQ(newest.created_at, got.created_at);
  ExpectSameHeader(newest, machine, want);
  ExpectSameCeilings(newest.profile.ceilings, want.ceilings);
  ExpectSamePoints(newest.profile, want);

  std::vector<StoredProfile> listed;
  ASSERT_TRUE(ListProfiles(&store_, &listed, &err)) << err.message;
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, id);
  ExpectSameHeader(listed[0], machine, want);
  ExpectSameCeilings(listed[0].profile.ceilings, want.ceilings);
  // The list carries ceilings only, not the points behind them.
  EXPECT_TRUE(listed[0].profile.latency.empty());
  EXPECT_TRUE(listed[0].profile.bandwidth.empty());
  EXPECT_TRUE(listed[0].profile.levels.empty());
}

// A ceiling the database refuses is named, and the profile is stored whole or not at all.
TEST_F(ProfileStoreTest, ARefusedCeilingIsNamedAndNothingIsStored) {
  Error err;
  ASSERT_TRUE(
      store_.db()->Exec("CREATE TEMP TRIGGER refuse BEFORE INSERT ON main.ceilings"
                        " WHEN NEW.name = 'dram_triad'"
                        " BEGIN SELECT RAISE(ABORT, 'refused here'); END",
                        &err))
      << err.message;
  int64_t id = 0;
  EXPECT_FALSE(InsertProfile(&store_, TestMachine(), FullProfile(), &id, &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_EQ(err.message, "database " + path_ + ": dram_triad: refused here");
  EXPECT_EQ(id, 0);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machine_profiles"), 0);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM ceilings"), 0);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machines"), 0);
}

TEST_F(ProfileStoreTest, RowsInTheFile) {
  int64_t id = Insert(TestMachine(), FullProfile());
  std::string where = " WHERE profile_id = " + std::to_string(id);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machine_profiles"), 1);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machines"), 1);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM ceilings" + where), 6);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM latency_points" + where), 3);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM bandwidth_points" + where), 4);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM memory_levels" + where), 4);
  // What was not measured is NULL, never 0.
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM memory_levels" + where +
                              " AND level = 'l3' AND latency_ns IS NULL"),
            1);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM memory_levels" + where + " AND latency_ns = 0"), 0);
  EXPECT_EQ(RawInt(path_, "SELECT working_set_bytes FROM ceilings" + where +
                              " AND name = 'dram_copy_nt' AND threads = 2"),
            int64_t{1} << 33);
  EXPECT_EQ(RawInt(path_,
                   "SELECT count(*) FROM machine_profiles WHERE warnings LIKE "
                   "'load average%' AND rprof_version <> ''"),
            1);
}

TEST_F(ProfileStoreTest, BandwidthCeilingsAreStoredInBothConventions) {
  int64_t id = Insert(TestMachine(), FullProfile());
  std::string where = " FROM ceilings WHERE profile_id = " + std::to_string(id);
  // dram_triad: 25.8 GB/s of compulsory bytes (24 per element) is 34.4 GB/s of actual traffic
  // (32 per element: the read for ownership of the stored line); in mGB/s to compare integers.
  EXPECT_EQ(RawInt(path_, "SELECT bytes_per_element" + where + " AND name = 'dram_triad'"), 24);
  EXPECT_EQ(RawInt(path_, "SELECT traffic_bytes_per_element" + where + " AND name = 'dram_triad'"),
            32);
  EXPECT_EQ(
      RawInt(path_, "SELECT round(traffic_value * 1000)" + where + " AND name = 'dram_triad'"),
      34400);
  EXPECT_EQ(RawInt(path_, "SELECT round(value * 1000)" + where + " AND name = 'dram_triad'"),
            25800);
  // Non-temporal stores allocate nothing: the same GB/s in both.
  EXPECT_EQ(RawInt(path_, "SELECT traffic_value = value" + where + " AND name = 'dram_copy_nt'"),
            1);
  // Compute ceilings have no bytes: NULL, never 0.
  EXPECT_EQ(RawInt(path_, "SELECT count(*)" + where +
                              " AND kind = 'compute' AND bytes_per_element IS NULL AND"
                              " traffic_bytes_per_element IS NULL AND traffic_value IS NULL"),
            3);
  // Read back: the factors, and so both values.
  StoredProfile got;
  Error err;
  ASSERT_TRUE(LoadProfile(&store_, id, &got, &err)) << err.message;
  const Ceiling* triad = nullptr;
  const Ceiling* fma = nullptr;
  for (const Ceiling& c : got.profile.ceilings) {
    if (c.name == "dram_triad") triad = &c;
    if (c.name == "fp64_avx2_fma") fma = &c;
  }
  ASSERT_TRUE(triad && fma);
  EXPECT_DOUBLE_EQ(CeilingValue(*triad, ByteConvention::kCompulsory), 25.8);
  EXPECT_DOUBLE_EQ(CeilingValue(*triad, ByteConvention::kTraffic), 25.8 * 32 / 24);
  EXPECT_EQ(fma->bytes_per_element, 0);
  EXPECT_DOUBLE_EQ(CeilingValue(*fma, ByteConvention::kTraffic), fma->value);
}

TEST_F(ProfileStoreTest, UnmeasuredClockAndNominalAreNullAndReadBackAsZero) {
  MachineProfile p = FullProfile();
  p.topology.nominal_ghz = 0;
  p.clock_ghz_vector = 0;
  p.warnings.clear();
  int64_t id = Insert(TestMachine(), p);
  EXPECT_EQ(RawInt(path_,
                   "SELECT count(*) FROM machine_profiles WHERE nominal_ghz IS NULL"
                   " AND clock_ghz_vector IS NULL"),
            1);
  StoredProfile got;
  Error err;
  ASSERT_TRUE(LoadProfile(&store_, id, &got, &err)) << err.message;
  EXPECT_EQ(got.nominal_ghz, 0);
  EXPECT_EQ(got.profile.clock_ghz_vector, 0);
  EXPECT_EQ(got.profile.clock_ghz_scalar, p.clock_ghz_scalar);
  EXPECT_TRUE(got.profile.warnings.empty());
}

TEST_F(ProfileStoreTest, NewestPerFingerprint) {
  MachineRecord one = TestMachine("fp-0001"), two = TestMachine("fp-0002");
  int64_t a = Insert(one, FullProfile(1.0));
  int64_t b = Insert(two, FullProfile(2.0));
  int64_t c = Insert(one, FullProfile(3.0));
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machines"), 2);

  Error err;
  bool found = false;
  StoredProfile newest;
  ASSERT_TRUE(LoadNewestProfile(&store_, "fp-0001", &newest, &found, &err)) << err.message;
  ASSERT_TRUE(found);
  EXPECT_EQ(newest.id, c);
  ExpectSameCeilings(newest.profile.ceilings, FullProfile(3.0).ceilings);
  ExpectSamePoints(newest.profile, FullProfile(3.0));

  ASSERT_TRUE(LoadNewestProfile(&store_, "fp-0002", &newest, &found, &err)) << err.message;
  ASSERT_TRUE(found);
  EXPECT_EQ(newest.id, b);
  EXPECT_EQ(newest.machine.fingerprint, "fp-0002");
  ExpectSameCeilings(newest.profile.ceilings, FullProfile(2.0).ceilings);

  // A machine without a profile: found is false, and that is not an error.
  newest = StoredProfile();
  found = true;
  EXPECT_TRUE(LoadNewestProfile(&store_, "fp-0003", &newest, &found, &err)) << err.message;
  EXPECT_FALSE(found);

  // The older profile of machine one is still there by id, with its own points only.
  StoredProfile old;
  ASSERT_TRUE(LoadProfile(&store_, a, &old, &err)) << err.message;
  ExpectSameCeilings(old.profile.ceilings, FullProfile(1.0).ceilings);
  ExpectSamePoints(old.profile, FullProfile(1.0));

  std::vector<StoredProfile> listed;
  ASSERT_TRUE(ListProfiles(&store_, &listed, &err)) << err.message;
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0].id, c);  // newest first
  EXPECT_EQ(listed[1].id, b);
  EXPECT_EQ(listed[2].id, a);
  EXPECT_EQ(listed[1].machine.fingerprint, "fp-0002");
  ExpectSameCeilings(listed[2].profile.ceilings, FullProfile(1.0).ceilings);
}

TEST_F(ProfileStoreTest, EmptyStoreHasNoProfiles) {
  Error err;
  std::vector<StoredProfile> listed = {StoredProfile()};
  ASSERT_TRUE(ListProfiles(&store_, &listed, &err)) << err.message;
  EXPECT_TRUE(listed.empty());
  bool found = true;
  StoredProfile newest;
  ASSERT_TRUE(LoadNewestProfile(&store_, "fp-0001", &newest, &found, &err)) << err.message;
  EXPECT_FALSE(found);
}

TEST_F(ProfileStoreTest, UnknownIdIsAUsageError) {
  Insert(TestMachine(), FullProfile());
  StoredProfile got;
  Error err;
  EXPECT_FALSE(LoadProfile(&store_, 999, &got, &err));
  EXPECT_EQ(err.kind, ErrorKind::kUsage);
  EXPECT_TRUE(Contains(err.message, "machine profile 999")) << err.message;
  EXPECT_TRUE(Contains(err.message, "rprof machine list")) << err.message;
}

TEST_F(ProfileStoreTest, FailedInsertStoresNothing) {
  MachineProfile p = FullProfile();
  // Two ceilings with one primary key (profile, name, threads): the insert fails after the
  // machine and profile rows and the first ceilings went in.
  p.ceilings.push_back(p.ceilings.front());
  int64_t id = -7;
  Error err;
  EXPECT_FALSE(InsertProfile(&store_, TestMachine(), p, &id, &err));
  EXPECT_EQ(id, -7) << "no id for a profile that was not stored";
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(Contains(err.message, path_)) << err.message;
  EXPECT_TRUE(Contains(err.message, "fp64_avx2_fma")) << err.message;
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machine_profiles"), 0);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM ceilings"), 0);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machines"), 0);

  // The connection is usable afterwards: the transaction was rolled back, not left open.
  int64_t good = Insert(TestMachine(), FullProfile());
  EXPECT_GT(good, 0);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machine_profiles"), 1);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM ceilings"), 6);
}

TEST_F(ProfileStoreTest, NoisyMarkAndLevelConfidenceRoundTrip) {
  MachineProfile quiet = FullProfile();
  int64_t a = Insert(TestMachine(), quiet);
  MachineProfile noisy = FullProfile();
  noisy.noisy_reasons = {"measured under load: other processes used 1.50 CPUs on average",
                         "DRAM latency 120 ns is not above L3's 292 ns"};
  noisy.levels[0].size_agreement = 3;
  noisy.levels[1].size_agreement = 1;
  noisy.levels[1].note = "a new size: profile 1 measured 128 KiB";
  int64_t b = Insert(TestMachine(), noisy);
  // In the file: a structured mark, the reasons one a line, NULL where there is nothing.
  EXPECT_EQ(RawInt(path_, "SELECT noisy FROM machine_profiles WHERE id = " + std::to_string(a)), 0);
  EXPECT_EQ(RawInt(path_, "SELECT count(*) FROM machine_profiles WHERE id = " + std::to_string(a) +
                              " AND noisy_reasons IS NULL"),
            1);
  EXPECT_EQ(RawInt(path_, "SELECT noisy FROM machine_profiles WHERE id = " + std::to_string(b)), 1);
  // One reason a line: the first, a newline, then the second.
  EXPECT_EQ(RawInt(path_,
                   "SELECT instr(noisy_reasons, char(10)) FROM machine_profiles"
                   " WHERE id = " +
                       std::to_string(b)),
            static_cast<int64_t>(noisy.noisy_reasons[0].size() + 1));
  EXPECT_EQ(
      RawInt(path_,
             "SELECT length(noisy_reasons) FROM machine_profiles WHERE id = " + std::to_string(b)),
      static_cast<int64_t>(noisy.noisy_reasons[0].size() + 1 + noisy.noisy_reasons[1].size()));
  EXPECT_EQ(RawInt(path_, "SELECT size_agreement FROM memory_levels WHERE profile_id = " +
                              std::to_string(b) + " AND level = 'l1'"),
            3);
  EXPECT_EQ(RawInt(path_,
                   "SELECT count(*) FROM memory_levels WHERE size_agreement IS NULL"
                   " AND note IS NULL AND profile_id = " +
                       std::to_string(a)),
            4);

  Error err;
  StoredProfile got;
  ASSERT_TRUE(LoadProfile(&store_, a, &got, &err)) << err.message;
  EXPECT_FALSE(got.profile.noisy());
  ASSERT_TRUE(LoadProfile(&store_, b, &got, &err)) << err.message;
  EXPECT_TRUE(got.profile.noisy());
  EXPECT_EQ(got.profile.noisy_reasons, noisy.noisy_reasons);
  ExpectSamePoints(got.profile, noisy);
  EXPECT_EQ(got.profile.levels[0].size_agreement, 3);
  EXPECT_EQ(got.profile.levels[1].note, noisy.levels[1].note);
  EXPECT_EQ(got.profile.levels[2].size_agreement, 0);
  EXPECT_EQ(got.profile.levels[2].note, "");
  std::vector<StoredProfile> listed;
  ASSERT_TRUE(ListProfiles(&store_, &listed, &err)) << err.message;
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_TRUE(listed[0].profile.noisy());
  EXPECT_FALSE(listed[1].profile.noisy());

  // Marked noisy in SQL without a reason: still noisy, and said so.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(
          raw, ("UPDATE machine_profiles SET noisy = 1 WHERE id = " + std::to_string(a)).c_str(),
          nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(raw);
  ASSERT_TRUE(LoadProfile(&store_, a, &got, &err)) << err.message;
  ASSERT_TRUE(got.profile.noisy());
  EXPECT_EQ(got.profile.noisy_reasons[0], "marked noisy in the database, without a reason");
}

TEST_F(ProfileStoreTest, ProfileSurvivesReopening) {
  MachineProfile want = FullProfile();
  int64_t id = Insert(TestMachine(), want);
  RunStore reopened;
  Error err;
  ASSERT_TRUE(reopened.Open({path_, false}, &err)) << err.message;
  StoredProfile got;
  ASSERT_TRUE(LoadProfile(&reopened, id, &got, &err)) << err.message;
  ExpectSameHeader(got, TestMachine(), want);
  ExpectSameCeilings(got.profile.ceilings, want.ceilings);
  ExpectSamePoints(got.profile, want);
}

}  // namespace
}  // namespace rprof
