// A misbehaving stand-in for shardscope-probe, for tests/ui/test_livepanel.cpp.
// ProbeClient starts it with `--watch MS` (ignored); FAKE_PROBE_MODE picks the fault:
//   hang       prints nothing, sleeps 60 s
//   late       prints one reading, then nothing for 60 s
//   crash      prints one reading, then abort()s (SIGABRT)
//   garbage    prints a line that is not JSON, then sleeps 60 s
//   noschema   prints JSON without "schema", then sleeps 60 s
//   error      prints an error document (nvml_error) and exits 1, as the real probe does
//   exit       prints a message on stderr and exits 3 without any output
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

constexpr const char *reading =
    R"({"driver_version":"550.54.15","gpus":[{"free_bytes":74229743616,"index":0,)"
    R"("name":"NVIDIA H100 80GB HBM3","pci_bus_id":"00000000:18:00.0","processes":[],)"
    R"("reserved_bytes":553648128,"total_bytes":85520809984,"used_bytes":10737418240,)"
    R"("uuid":"GPU-0f6a2c4e-1b3d-4e5f-8a9b-0c1d2e3f4a50"}],"nvml_memory_api":"v2",)"
    R"("schema":"shardscope-probe/1","source":"nvml","timestamp_ms":1717171717123})";

void line(const char *text)
{
    std::fputs(text, stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

void sleepLong()
{
    std::this_thread::sleep_for(std::chrono::seconds(60));
}

} // namespace

int main()
{
    const char *env = std::getenv("FAKE_PROBE_MODE");
    const char *mode = env ? env : "hang";
    const auto is = [mode](const char *m) { return std::strcmp(mode, m) == 0; };
    if (is("late")) {
        line(reading);
        sleepLong();
    } else if (is("crash")) {
        line(reading);
        std::abort();
    } else if (is("garbage")) {
        line("GPU 0: 10.0 GiB used of 79.6 GiB");
        sleepLong();
    } else if (is("noschema")) {
        line(R"({"gpus":[]})");
        sleepLong();
    } else if (is("error")) {
        line(R"({"driver_version":"550.54.15","error":"nvmlDeviceGetMemoryInfo_v2 failed: )"
             R"j(GPU is lost (NVML error 15)","error_code":"nvml_error","gpus":[],)j"
             R"("nvml_return":15,"schema":"shardscope-probe/1","source":"nvml",)"
             R"("timestamp_ms":1717171717123})");
        return 1;
    } else if (is("exit")) {
        std::fputs("fakeprobe: cannot open /dev/nvidiactl\n", stderr);
        return 3;
    } else {
        sleepLong();
    }
    return 0;
}
