// Data-parallel `select` over c10d's Gloo on loopback (docs/scale.md): the
// ranks follow one process, a dead rank or a bad address stops the run with
// an error naming it and no output, ranks with different data are refused.
// Every run is bounded by a small --timeout.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

using nlohmann::json;
using test::contains;
using test::run_cli;
using test::run_command;

// 1001 rows (divisible neither by 2 nor by 3: the shards are uneven) of
// `features` normal columns; the class is the sign of f3 + f7 - f11.
std::string planted_csv(int features) {
  Rng rng(77);
  std::string text;
  for (int j = 0; j < features; ++j) text += fmt::format("f{},", j);
  text += "label\n";
  for (int i = 0; i < 1001; ++i) {
    std::vector<double> row(static_cast<std::size_t>(features));
    for (auto& v : row) v = std::round(rng.normal() * 1e4) / 1e4;
    for (double v : row) text += fmt::format("{:.4f},", v);
    text += row[3] + row[7] - row[11] > 0 ? "1\n" : "0\n";
  }
  return text;
}

const std::string& planted() {
  static const std::string path = test::write_temp_file("planted.csv", planted_csv(16));
  return path;
}

std::string fresh(const std::string& name) {
  const std::string path = test::temp_dir() + "/" + name;
  std::remove(path.c_str());
  return path;
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// 5 epochs exactly, of minibatches of `batch` rows over all the ranks
// (--global-batch: one process's steps), on `data` (the file and its reader
// flags).
std::string run_args(const std::string& method, int batch = 100,
                     const std::string& data = "'" + planted() + "' --target label") {
  return fmt::format(
      "select {} --method {} --k 3 --epochs 5 --min-steps 0 "
      "--global-batch {} --lr 0.01 --hidden 16 --threads 1 --seed 3 -q",
      data, method, batch);
}

// The run over `ranks` processes against the one-process run: the same
// selection, every epoch's losses within 1e-4, world_size recorded.
void expect_follows_one_process(const std::string& method, int ranks, const std::string& args) {
  const std::string one = fresh(method + "_one.json");
  const std::string many = fresh(method + "_many.json");
  const auto alone = run_cli(args + " -o " + one);
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  const auto parallel = run_cli(args + fmt::format(" --nproc {} --timeout 60 -o {}", ranks, many));
  ASSERT_EQ(parallel.exit_code, 0) << parallel.err;
  const json a = read_json(one), b = read_json(many);
  EXPECT_EQ(a["selected"], b["selected"]);
  EXPECT_EQ(b["options"]["world_size"], ranks);
  EXPECT_FALSE(a["options"].contains("world_size"));
  ASSERT_EQ(a["history"].size(), b["history"].size());
  for (std::size_t e = 0; e < a["history"].size(); ++e) {
    const json& x = a["history"][e];
    const json& y = b["history"][e];
    EXPECT_NEAR(x["loss"].get<double>(), y["loss"].get<double>(), 1e-4) << "epoch " << e + 1;
    if (x.contains("val_loss")) {
      EXPECT_NEAR(x["val_loss"].get<double>(), y["val_loss"].get<double>(), 1e-4)
          << "epoch " << e + 1;
    }
  }
}

TEST(DataParallelTest, TwoRanksFollowOneProcessOnAPlantedProblem) {
  expect_follows_one_process("dnn-top", 2, run_args("dnn-top"));
  auto selected =
      read_json(test::temp_dir() + "/dnn-top_many.json")["selected"].get<std::vector<int>>();
  std::sort(selected.begin(), selected.end());
  EXPECT_EQ(selected, std::vector<int>({3, 7, 11}));
}

// --batch is per rank (PyTorch DDP's convention): 2 ranks of --batch 50 take
// the steps of --global-batch 100, the same losses to the last digit, and
// follow one process of --batch 100; 2 ranks of --batch 100 take steps of 200
// rows, half as many a pass, and so learn otherwise.
TEST(DataParallelTest, BatchIsPerRankAndGlobalBatchSplitsOneProcessSteps) {
  const std::string common = fmt::format(
      "select '{}' --target label --method dnn-top --k 3 --epochs 5 --min-steps 0 "
      "--lr 0.01 --hidden 16 --threads 1 --seed 3 -q --timeout 60",
      planted());
  const std::string per_rank = fresh("per_rank.json"), global = fresh("global.json"),
                    alone = fresh("alone.json"), larger = fresh("larger.json");
  for (const auto& [flags, out] :
       std::vector<std::pair<std::string, std::string>>{{"--nproc 2 --batch 50", per_rank},
                                                        {"--nproc 2 --global-batch 100", global},
                                                        {"--batch 100", alone},
                                                        {"--nproc 2 --batch 100", larger}}) {
    const auto run = run_cli(common + " " + flags + " -o " + out);
    ASSERT_EQ(run.exit_code, 0) << flags << ": " << run.err;
  }
  const json a = read_json(per_rank), b = read_json(global), c = read_json(alone),
             d = read_json(larger);
  EXPECT_EQ(a["history"].size(), 5u);
  ASSERT_EQ(a["history"].size(), b["history"].size());
  for (std::size_t e = 0; e < a["history"].size(); ++e) {
    EXPECT_EQ(a["history"][e]["loss"], b["history"][e]["loss"]) << "epoch " << e + 1;
    EXPECT_EQ(a["history"][e]["val_loss"], b["history"][e]["val_loss"]) << "epoch " << e + 1;
    EXPECT_NEAR(a["history"][e]["loss"].get<double>(), c["history"][e]["loss"].get<double>(), 1e-4)
        << "epoch " << e + 1;
  }
  EXPECT_EQ(a["selected"], c["selected"]);
  EXPECT_GT(std::abs(d["history"][0]["loss"].get<double>() - c["history"][0]["loss"].get<double>()),
            1e-3);
  // The wait for the sums, in the result.
  EXPECT_GE(a["options"]["sum_wait_ms_per_step"].get<double>(), 0.0);
  EXPECT_EQ(a["options"]["batch"], 50);
  EXPECT_EQ(b["options"]["global-batch"], 100);
}

// A first layer large enough for early buckets (40000 units x 16 inputs:
// 2.56 MB, two buckets summed during the backward pass, then the rest): the
// result of 2 ranks is the same for 1 and 2 threads a rank, whose members
// finish the unit blocks in either order, and the steps do sum in buckets.
TEST(DataParallelTest, EarlyBucketsKeepTheResultTheSameForAnyThreadCount) {
  std::string args = run_args("dnn-top");
  args.replace(args.find(" --hidden 16"), 12, " --hidden 40000 --epochs 2");
  args.replace(args.find(" --epochs 5"), 11, "");
  // 128 rows a rank: two row blocks, so a team of two.
  args.replace(args.find(" --global-batch 100"), 19, " --global-batch 256");
  args.replace(args.find(" --threads 1"), 12, "");
  const std::string one = fresh("buckets_1.json"), two = fresh("buckets_2.json");
  for (const auto& [threads, out] : std::vector<std::pair<int, std::string>>{{1, one}, {2, two}}) {
    const auto run =
        run_cli(fmt::format("{} --threads {} --nproc 2 --timeout 60 -o {}", args, threads, out));
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  const json a = read_json(one), b = read_json(two);
  EXPECT_EQ(b["options"]["threads_used"], 2);
  ASSERT_EQ(a["history"].size(), 2u);
  for (std::size_t e = 0; e < 2; ++e) {
    EXPECT_EQ(a["history"][e]["loss"], b["history"][e]["loss"]) << "epoch " << e + 1;
    EXPECT_EQ(a["history"][e]["val_loss"], b["history"][e]["val_loss"]) << "epoch " << e + 1;
  }
  EXPECT_EQ(a["selected"], b["selected"]);
  // 2 epochs of 4 steps (900 training rows, 256 a step): three sums a step
  // (one with the buckets off), and a few more an epoch.
  for (const json& result : {a, b}) {
    long sums = -1;
    for (const auto& note : result["notes"]) {
      const std::string text = note.get<std::string>();
      const auto at = text.find(" sums over the ranks took");
      if (at != std::string::npos) sums = std::stol(text.substr(text.rfind(' ', at - 1) + 1));
    }
    EXPECT_GE(sums, 3 * 8) << result["notes"];
  }
}

// `--nproc 2` of the planted run on the cores `cores` (taskset's list),
// which must succeed; its output goes to `out`.
test::CommandResult two_ranks_on(const std::string& cores, const std::string& out) {
  const auto run = run_command(fmt::format("taskset -c {} '{}' {} --nproc 2 --timeout 60 -o '{}'",
                                           cores, TOPKFS_CLI_PATH, run_args("dnn-top"), out));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run;
}

// Fewer free cores than ranks: the launcher says so once, with what it
// measured (one usable core under taskset), and the run goes on.
TEST(DataParallelTest, FewerFreeCoresThanRanksIsWarnedOnce) {
  const std::string out = fresh("one_core.json");
  const auto run = two_ranks_on("0", out);
  EXPECT_TRUE(contains(run.err, "warning: 2 ranks on 1 free core (1 usable")) << run.err;
  const auto first = run.err.find("free core");
  EXPECT_EQ(run.err.find("free core", first + 1), std::string::npos) << run.err;
  EXPECT_TRUE(exists(out));
}

// As many free cores as ranks are enough: the sums go through shared memory
// on the ranks' own threads and need no core of their own. On two usable
// cores the only warning is that of fewer free cores than ranks, when other
// work holds one of them.
TEST(DataParallelTest, AsManyFreeCoresAsRanksAreEnough) {
  const auto run = two_ranks_on("0,1", fresh("two_cores.json"));
  EXPECT_FALSE(contains(run.err, "threads of their sums")) << run.err;
  if (contains(run.err, "warning: 2 ranks on ")) {
    EXPECT_TRUE(contains(run.err, "2 ranks on 1 free core") ||
                contains(run.err, "2 ranks on 0 free cores"))
        << run.err;
  }
}

// Without --threads, the ranks of one machine share its cores: on two of
// them, 2 ranks take one thread each (one process would take both when free).
TEST(DataParallelTest, RanksOnOneMachineShareItsCoresByDefault) {
  std::string args = run_args("dnn-top");
  args.replace(args.find(" --threads 1"), 12, "");
  const std::string out = fresh("shared_cores.json");
  const auto run = run_command(fmt::format("taskset -c 0,1 '{}' {} --nproc 2 --timeout 60 -o '{}'",
                                           TOPKFS_CLI_PATH, args, out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = read_json(out);
  EXPECT_EQ(result["options"]["threads"], 1);
  EXPECT_EQ(result["options"]["threads_used"], 1);
}

// Without validation rows, the last minibatch of each epoch has one row: one
// rank has none of it and adds nothing but must still take the step.
TEST(DataParallelTest, ARankWithNoRowsOfAMinibatchStillTakesTheStep) {
  expect_follows_one_process("dnn-top", 2, run_args("dnn-top") + " --validation 0");
  expect_follows_one_process("stg", 2, run_args("stg") + " --validation 0");
}

// Uneven shards (1001 rows over 3; minibatches of 64 whose last has 4 rows),
// and models with noise per step (STG) and with step statistics the selector
// learns from (FIR).
TEST(DataParallelTest, ThreeRanksFollowOneProcessWithUnevenShards) {
  expect_follows_one_process("stg", 3, run_args("stg", 64));
  expect_follows_one_process("fir", 3, run_args("fir", 64));
}

// The planted problem as a mapped .npy pair and as HDF5 (read by row blocks):
// each rank reads only its shard's rows of the file (the scaling statistics
// and the value checks included), and the ranks still follow one process.
TEST(DataParallelTest, TwoRanksReadingTheirShardsOfAFileFollowOneProcess) {
  const std::string x = fresh("planted_x.npy"), y = fresh("planted_y.npy");
  const auto converted = run_cli(
      fmt::format("convert '{}' --target label --output '{}' --y-output '{}'", planted(), x, y));
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  const std::string h5 =
      test::python_fixture("planted.h5", fmt::format("import h5py\n"
                                                     "with h5py.File(out, 'w') as f:\n"
                                                     "    f['X'] = np.load('{}')\n"
                                                     "    f['Y'] = np.load('{}')",
                                                     x, y));
  ASSERT_FALSE(testing::Test::HasFatalFailure());
  expect_follows_one_process("dnn-top", 2,
                             run_args("dnn-top", 100, fmt::format("'{}' --y-file '{}'", x, y)));
  expect_follows_one_process("concrete", 2, run_args("concrete", 100, "'" + h5 + "'"));
}

TEST(DataParallelTest, AKilledRankStopsTheOthersWithAnErrorNamingIt) {
  const std::string output = fresh("killed.json");
  const std::string err = fresh("killed.err");
  const std::string checkpoint = fresh("killed.ckpt");
  // Many epochs, so that rank 1 dies in the middle of training; the
  // launcher's second child is rank 1. Rank 0's first checkpoint says that
  // both ranks are training (its first epoch needed rank 1's sums): waiting
  // for it rather than for a fixed time keeps a slow start (a sanitizer
  // build on a busy machine) from killing rank 1 before it has connected.
  const std::string script = test::write_temp_file(
      "kill_rank_1.sh",
      fmt::format(
          "'{}' select '{}' --target label --method dnn-top --k 3 --epochs 100000 --min-steps 0 "
          "--hidden 16 --threads 1 -q --timeout 60 --nproc 2 --checkpoint '{}' -o '{}' "
          "2>'{}' &\n"
          "launcher=$!\n"
          "for i in $(seq 1200); do [ -e '{}' ] && break; sleep 0.1; done\n"
          "kill -9 $(ps -o pid= --ppid $launcher | sort -n | sed -n 2p)\n"
          "wait $launcher\n",
          TOPKFS_CLI_PATH, planted(), checkpoint, output, err, checkpoint));
  const auto result = run_command("bash '" + script + "'");
  std::ifstream in(err);
  const std::string messages((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(contains(messages, "rank 1 (process")) << messages;
  EXPECT_TRUE(contains(messages, "killed by signal 9")) << messages;
  // Rank 0 names it too, from the broken connection.
  EXPECT_TRUE(contains(messages, "rank 1 stopped answering")) << messages;
  EXPECT_FALSE(exists(output));
}

TEST(DataParallelTest, AStoreThatCannotBeReachedIsNamed) {
  // Nothing listens on port 1 of loopback.
  const auto result = run_cli(run_args("dnn-top") +
                              " --rank 1 --world-size 2 --master 127.0.0.1:1 --timeout 2 -o " +
                              fresh("unreached.json"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "cannot reach the rendezvous store at 127.0.0.1:1"))
      << result.err;
  EXPECT_FALSE(exists(test::temp_dir() + "/unreached.json"));
}

// A port nothing listens on now (the system's pick for a socket closed
// again): rank 0 opens its store there.
int unused_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t size = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  close(fd);
  return ntohs(address.sin_port);
}

TEST(DataParallelTest, RanksWithDifferentColumnsAreRefusedAtTheRendezvous) {
  const std::string narrow = test::write_temp_file("narrow.csv", planted_csv(14));
  const std::string err0 = fresh("rank0.err"), err1 = fresh("rank1.err");
  const int port = unused_port();
  const std::string common =
      "--target label --method dnn-top --k 3 --epochs 1 --threads 1 -q --timeout 30 "
      "--world-size 2 --master 127.0.0.1:" +
      std::to_string(port);
  const auto result = run_command(fmt::format(
      "'{0}' select '{1}' {3} --rank 0 2>'{4}' & '{0}' select '{2}' {3} --rank 1 2>'{5}'; "
      "one=$?; wait $!; zero=$?; echo $zero $one",
      TOPKFS_CLI_PATH, planted(), narrow, common, err0, err1));
  EXPECT_EQ(result.out, "1 1\n");
  for (const auto& path : {err0, err1}) {
    std::ifstream in(path);
    const std::string messages((std::istreambuf_iterator<char>(in)), {});
    EXPECT_TRUE(contains(messages, "rank 0 has 1001 rows x 16 columns")) << messages;
    EXPECT_TRUE(contains(messages, "rank 1 has 1001 rows x 14 columns")) << messages;
  }
}

// 1001 rows of 12 columns (the first two far from 0, so that sums of raw
// values would lose digits) and y = 2 f1 - 3 f4 + f9 + noise.
std::string regression_csv() {
  Rng rng(5);
  std::string text = "f0,f1,f2,f3,f4,f5,f6,f7,f8,f9,f10,f11,y\n";
  for (int i = 0; i < 1001; ++i) {
    std::vector<double> row(12);
    for (auto& v : row) v = rng.normal();
    row[0] += 1e4;
    row[1] += 300.0;
    for (double v : row) text += fmt::format("{:.6f},", v);
    text += fmt::format("{:.6f}\n", 2 * row[1] - 3 * row[4] + row[9] + 0.5 * rng.normal());
  }
  return text;
}

// The linear methods sum X^T X, X^T y and the column sums over the ranks
// once: every rank solves the problem one process solves.
TEST(DataParallelTest, ALinearFitOverThreeRanksIsTheOneProcessFit) {
  const std::string data = test::write_temp_file("regression.csv", regression_csv());
  for (const std::string method : {"lasso-top", "elastic-net"}) {
    const std::string args =
        fmt::format("select '{}' --target y --method {} --k 3 -q --timeout 60", data, method);
    const std::string one = fresh("linear_one.json"), many = fresh("linear_many.json");
    ASSERT_EQ(run_cli(args + " -o " + one).exit_code, 0);
    const auto parallel = run_cli(args + " --nproc 3 -o " + many);
    ASSERT_EQ(parallel.exit_code, 0) << parallel.err;
    const json a = read_json(one), b = read_json(many);
    EXPECT_EQ(a["selected"], b["selected"]) << method;
    ASSERT_EQ(a["scores"].size(), b["scores"].size());
    for (std::size_t j = 0; j < a["scores"].size(); ++j) {
      EXPECT_NEAR(a["scores"][j].get<double>(), b["scores"][j].get<double>(), 1e-9)
          << method << " column " << j;
    }
    EXPECT_EQ(b["options"]["world_size"], 3);
  }
}

TEST(DataParallelTest, ALinearFitOfClassesIsRefusedClearly) {
  const auto result = run_cli(fmt::format(
      "select '{}' --target label --method lasso --k 3 -q --nproc 2 --timeout 60", planted()));
  // A usage error of the ranks is the launcher's (exit 2), said once: every
  // rank meets it, rank 0 alone prints it, and no libtorch log line shows.
  EXPECT_EQ(result.exit_code, 2) << result.err;
  const auto first = result.err.find("gaussian family only");
  ASSERT_NE(first, std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("gaussian family only", first + 1), std::string::npos) << result.err;
  EXPECT_FALSE(contains(result.err, "[W ")) << result.err;
  EXPECT_FALSE(contains(result.err, "c10d")) << result.err;
}

TEST(DataParallelTest, AMethodThatCannotTrainDataParallelIsRefused) {
  const auto result = run_cli(
      fmt::format("select '{}' --target label --method random-forest --k 3 --nproc 2", planted()));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(contains(result.err, "does not train data-parallel")) << result.err;
}

}  // namespace
}  // namespace topkfs
