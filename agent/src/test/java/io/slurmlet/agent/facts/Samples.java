package io.slurmlet.agent.facts;

import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Realistic kernel and program output for the facts tests. */
final class Samples {

    private Samples() {}

    /**
     * /proc/cpuinfo of a 2-socket Xeon Gold 6230 cut down to 2 cores a socket, hyperthreaded: 8 CPUs.
     * The kernel numbers the first thread of every core first, alternating sockets, then the
     * siblings; core ids have gaps, as on real Xeons.
     */
    static String intelTwoSocketsHyperthreaded() {
        int[][] placement = {{0, 0}, {1, 0}, {0, 4}, {1, 4}, {0, 0}, {1, 0}, {0, 4}, {1, 4}};
        return IntStream.range(0, placement.length)
                .mapToObj(i -> """
                processor	: %d
                vendor_id	: GenuineIntel
                cpu family	: 6
                model		: 85
                model name	: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz
                stepping	: 7
                microcode	: 0x5003604
                cpu MHz		: 2100.000
                cache size	: 28160 KB
                physical id	: %d
                siblings	: 4
                core id		: %d
                cpu cores	: 2
                apicid		: %d
                initial apicid	: %d
                fpu		: yes
                fpu_exception	: yes
                cpuid level	: 22
                wp		: yes
                flags		: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch avx512f avx512dq avx512_vnni
                bugs		: spectre_v1 spectre_v2 spec_store_bypass swapgs taa itlb_multihit mmio_stale_data retbleed
                bogomips	: 4200.00
                clflush size	: 64
                cache_alignment	: 64
                address sizes	: 46 bits physical, 48 bits virtual
                power management:

                """.formatted(
                                i,
                                placement[i][0],
                                placement[i][1],
                                placement[i][0] * 64 + placement[i][1] * 2 + i / 4,
                                placement[i][0] * 64 + placement[i][1] * 2 + i / 4))
                .collect(Collectors.joining());
    }

    /** /proc/cpuinfo of a 4-CPU arm64 machine (Ampere Altra / Neoverse N1): no physical id, no core id. */
    static final String ARM64 =
            IntStream.range(0, 4).mapToObj(i -> """
            processor	: %d
            BogoMIPS	: 50.00
            Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs
            CPU implementer	: 0x41
            CPU architecture: 8
            CPU variant	: 0x3
            CPU part	: 0xd0c
            CPU revision	: 1

            """.formatted(i)).collect(Collectors.joining());

    static final String MEMINFO = """
            MemTotal:       792350428 kB
            MemFree:        751234100 kB
            MemAvailable:   780112344 kB
            Buffers:          412332 kB
            Cached:         20112320 kB
            SwapCached:            0 kB
            HugePages_Total:       0
            Hugepagesize:       2048 kB
            """;

    static final String EIGHT_H100 = "NVIDIA H100 80GB HBM3\n".repeat(8);

    static final String FOUR_A100_TWO_L40S = """
            NVIDIA A100-SXM4-80GB
            NVIDIA A100-SXM4-80GB
            NVIDIA L40S
            NVIDIA A100-SXM4-80GB
            NVIDIA A100-SXM4-80GB
            NVIDIA L40S
            """;

    static final String NVIDIA_SMI_NO_DRIVER = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
            + "driver. Make sure that the latest NVIDIA driver is installed and running.\n\n";

    static final String DEBIAN_12 = """
            PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
            NAME="Debian GNU/Linux"
            VERSION_ID="12"
            VERSION="12 (bookworm)"
            VERSION_CODENAME=bookworm
            ID=debian
            HOME_URL="https://www.debian.org/"
            SUPPORT_URL="https://www.debian.org/support"
            BUG_REPORT_URL="https://bugs.debian.org/"
            """;

    static final String UBUNTU_2404 = """
            PRETTY_NAME="Ubuntu 24.04.1 LTS"
            NAME="Ubuntu"
            VERSION_ID="24.04"
            VERSION="24.04.1 LTS (Noble Numbat)"
            VERSION_CODENAME=noble
            ID=ubuntu
            ID_LIKE=debian
            HOME_URL="https://www.ubuntu.com/"
            SUPPORT_URL="https://help.ubuntu.com/"
            BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
            PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
            UBUNTU_CODENAME=noble
            LOGO=ubuntu-logo
            """;

    static final String ROCKY_9 = """
            NAME="Rocky Linux"
            VERSION="9.4 (Blue Onyx)"
            ID="rocky"
            ID_LIKE="rhel centos fedora"
            VERSION_ID="9.4"
            PLATFORM_ID="platform:el9"
            PRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"
            ANSI_COLOR="0;32"
            LOGO="fedora-logo-icon"
            CPE_NAME="cpe:/o:rocky:rocky:9::baseos"
            HOME_URL="https://rockylinux.org/"
            BUG_REPORT_URL="https://bugs.rockylinux.org/"
            SUPPORT_END="2032-05-31"
            ROCKY_SUPPORT_PRODUCT="Rocky-Linux-9"
            ROCKY_SUPPORT_PRODUCT_VERSION="9.4"
            REDHAT_SUPPORT_PRODUCT="Rocky Linux"
            REDHAT_SUPPORT_PRODUCT_VERSION="9.4"
            """;
}
